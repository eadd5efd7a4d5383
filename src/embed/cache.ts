/**
 * Embeddings kept on disk, keyed by the embedder's id and a hash of the
 * text, so a restart (or a second process) re-embeds nothing it has seen.
 * One file per embedder id and config (its `scope`): records of a 16-byte
 * text hash, then the vector as float32. Loaded whole at start; new vectors
 * are appended. Kept per config, a start reads only what its own tools left
 * there: never what other configs, or `eval` over other sets, embedded. In memory a
 * vector is kept as int16 codes and a scale (stored.ts): half the bytes.
 *
 * Bounded by `maxBytes` (records' bytes), in memory and on disk: beyond it
 * the least recently used records are dropped from memory, and once the
 * file is a quarter over it is rewritten (compacted) with the live records
 * alone, least recently used first, so the order on disk carries the
 * recency to the next start. A use is recorded in memory only (moving the
 * record to the end of the map): a lookup never writes.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULTS } from "../config/defaults.js";
import { appendFileSafe, writeFileAtomic } from "../util/files.js";
import { restoreVector, storeVector, type StoredVector } from "./stored.js";

const HASH_BYTES = 16;
/** How far the file may grow past the cap before it is compacted: a rewrite per quarter of the cap in new texts, not one per text. */
export const COMPACT_MARGIN = 1.25;

export function textHash(text: string): string {
  return createHash("sha256")
    .update(text)
    .digest("hex")
    .slice(0, HASH_BYTES * 2);
}

export class EmbeddingCache {
  /** Least recently used first: a use moves a record to the end. */
  private readonly vectors = new Map<string, StoredVector>();
  readonly file: string | undefined;
  /** Bytes of one record: the hash and the vector. */
  private readonly record: number;
  /** Records kept: as many as fit in the cap (at least one). */
  readonly maxEntries: number;

  /**
   * `dir` undefined: in memory only. `maxBytes`: the cap on records' bytes,
   * default `DEFAULTS.search.embeddingCacheMaxBytes`. `scope`: whose file it
   * is (the config file's path), so each config reads and caps its own.
   */
  constructor(
    embedderId: string,
    readonly dimensions: number,
    dir: string | undefined,
    maxBytes: number = DEFAULTS.search.embeddingCacheMaxBytes,
    scope?: string,
  ) {
    this.record = HASH_BYTES + dimensions * 4;
    this.maxEntries = Math.max(1, Math.floor(maxBytes / this.record));
    const owner = scope === undefined ? "" : `.${textHash(scope).slice(0, 16)}`;
    this.file = dir === undefined ? undefined : join(dir, `${embedderId.replace(/[^A-Za-z0-9._-]+/g, "_")}${owner}.vec`);
    if (this.file && existsSync(this.file)) this.load(this.file);
  }

  /** Whole records in a cache file of `dimensions`-long vectors (0 when there is none), without loading it. */
  static countIn(file: string, dimensions: number): number {
    return existsSync(file) ? Math.floor(statSync(file).size / (HASH_BYTES + dimensions * 4)) : 0;
  }

  get size(): number {
    return this.vectors.size;
  }

  /** The vector of a text hash, marked as just used. */
  get(hash: string): StoredVector | undefined {
    const vector = this.vectors.get(hash);
    if (vector) {
      this.vectors.delete(hash);
      this.vectors.set(hash, vector);
    }
    return vector;
  }

  /**
   * Keeps new vectors (as just used), dropping the least recently used
   * beyond the cap, and appends them to the file in one write, or compacts
   * the file instead when the append would take it past the margin.
   * Returns each entry's vector as kept (the one kept before, for a hash
   * the cache had).
   */
  add(entries: readonly { hash: string; vector: Float32Array }[]): StoredVector[] {
    const kept: StoredVector[] = [];
    const fresh: { hash: string; vector: Float32Array }[] = [];
    for (const e of entries) {
      let vector = this.vectors.get(e.hash);
      if (!vector) {
        this.vectors.set(e.hash, (vector = storeVector(e.vector)));
        fresh.push(e);
      }
      kept.push(vector);
    }
    if (!fresh.length) return kept;
    this.evict();
    if (!this.file) return kept;
    mkdirSync(join(this.file, ".."), { recursive: true });
    // The size on disk, not a count of this process's appends: another process may append to the same file.
    const onDisk = existsSync(this.file) ? statSync(this.file).size : 0;
    if (onDisk + fresh.length * this.record > this.maxEntries * this.record * COMPACT_MARGIN) this.compact();
    else appendFileSafe(this.file, this.encode(fresh));
    return kept;
  }

  /** Rewrites the file with the records in memory, least recently used first (through a temporary file: a reader never sees half of it). */
  compact(): void {
    if (!this.file) return;
    mkdirSync(join(this.file, ".."), { recursive: true });
    writeFileAtomic(this.file, this.encode([...this.vectors].map(([hash, vector]) => ({ hash, vector: restoreVector(vector) }))));
  }

  private evict(): void {
    for (const hash of this.vectors.keys()) {
      if (this.vectors.size <= this.maxEntries) break;
      this.vectors.delete(hash);
    }
  }

  private encode(entries: readonly { hash: string; vector: Float32Array }[]): Buffer {
    const out = Buffer.alloc(entries.length * this.record);
    entries.forEach((e, i) => {
      Buffer.from(e.hash, "hex").copy(out, i * this.record, 0, HASH_BYTES);
      Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).copy(out, i * this.record + HASH_BYTES);
    });
    return out;
  }

  /**
   * Reads the newest `maxEntries` records (the file's end: appended last, or
   * used last before a compaction). A file past the margin (a cap lowered
   * since), or with a torn last record (a crash mid-append, which would put
   * every later append out of step), is compacted at once.
   */
  private load(file: string): void {
    const buf = readFileSync(file);
    const record = this.record;
    const count = Math.floor(buf.length / record);
    for (let i = Math.max(0, count - this.maxEntries); i < count; i++) {
      const at = i * record;
      const hash = buf.toString("hex", at, at + HASH_BYTES);
      // A record written twice (two processes embedding the same text) counts as used where it was written last.
      this.vectors.delete(hash);
      // Arrays of its own per vector: dropping one frees it, where a view would keep the whole file's bytes alive.
      this.vectors.set(hash, storeVector(new Float32Array(buf.buffer.slice(buf.byteOffset + at + HASH_BYTES, buf.byteOffset + at + record))));
    }
    if (buf.length % record !== 0 || buf.length > this.maxEntries * record * COMPACT_MARGIN) this.compact();
  }
}
