/**
 * Embeddings kept on disk, keyed by the embedder's id and a hash of the
 * text, so a restart (or a second process) re-embeds nothing it has seen.
 * One append-only file per embedder id: a 16-byte text hash, then the
 * vector as float32. Loaded whole at start; new vectors are appended.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { appendFileSafe } from "../util/files.js";

const HASH_BYTES = 16;

export function textHash(text: string): string {
  return createHash("sha256")
    .update(text)
    .digest("hex")
    .slice(0, HASH_BYTES * 2);
}

export class EmbeddingCache {
  private readonly vectors = new Map<string, Float32Array>();
  readonly file: string | undefined;

  /** `dir` undefined: in memory only. */
  constructor(
    embedderId: string,
    readonly dimensions: number,
    dir: string | undefined,
  ) {
    this.file = dir === undefined ? undefined : join(dir, `${embedderId.replace(/[^A-Za-z0-9._-]+/g, "_")}.vec`);
    if (this.file && existsSync(this.file)) this.load(this.file);
  }

  /** Whole records in a cache file of `dimensions`-long vectors (0 when there is none), without loading it. */
  static countIn(file: string, dimensions: number): number {
    return existsSync(file) ? Math.floor(statSync(file).size / (HASH_BYTES + dimensions * 4)) : 0;
  }

  get size(): number {
    return this.vectors.size;
  }

  get(hash: string): Float32Array | undefined {
    return this.vectors.get(hash);
  }

  /** Keeps new vectors, appending them to the file in one write. */
  add(entries: readonly { hash: string; vector: Float32Array }[]): void {
    const fresh = entries.filter((e) => !this.vectors.has(e.hash));
    if (!fresh.length) return;
    for (const e of fresh) this.vectors.set(e.hash, e.vector);
    if (!this.file) return;
    const record = HASH_BYTES + this.dimensions * 4;
    const out = Buffer.alloc(fresh.length * record);
    fresh.forEach((e, i) => {
      Buffer.from(e.hash, "hex").copy(out, i * record, 0, HASH_BYTES);
      Buffer.from(e.vector.buffer, e.vector.byteOffset, e.vector.byteLength).copy(out, i * record + HASH_BYTES);
    });
    mkdirSync(join(this.file, ".."), { recursive: true });
    appendFileSafe(this.file, out);
  }

  private load(file: string): void {
    const buf = readFileSync(file);
    const record = HASH_BYTES + this.dimensions * 4;
    // A torn last record (a crash mid-append) is ignored.
    for (let at = 0; at + record <= buf.length; at += record) {
      const hash = buf.subarray(at, at + HASH_BYTES).toString("hex");
      this.vectors.set(hash, new Float32Array(new Uint8Array(buf.subarray(at + HASH_BYTES, at + record)).buffer));
    }
  }
}
