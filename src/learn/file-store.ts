/**
 * What search learns, kept in a file when the store is `memory` (the
 * default), so a restart of the client does not forget it: one file per
 * config file in the cache folder (`learningFile`), read at start, written
 * whole (writeFileAtomic) a few seconds after a change (at most every
 * `WRITE_EVERY_MS`) and when the server stops.
 *
 * Between writes it is a store in this process: every operation is
 * synchronous under its promise, so a counter's increment is atomic here
 * (as the memory store's is). The file is read again and written only from
 * timers, never inside an operation: a timer runs when no promise is
 * pending, so it cannot come between a read of a key and the write that
 * follows it (store.ts's updates await nothing else between the two).
 * Several processes on one config (two clients' servers, a CLI command
 * while one serves) share the file: each reads it again when someone else
 * wrote it (a server checks every `RELOAD_MS`; everyone before each write)
 * and lays its own changes since its last read over it (merge.ts: evidence
 * and counters add up). Two writes within the same few milliseconds can
 * still lose the first one's last seconds; nothing worse. A file that is
 * not valid is reported, started over and replaced at the next write; the
 * process never fails for it.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { KeyValue } from "../store/kv.js";
import { stampOf } from "../security/lock-format.js";
import { errorMessage } from "../util/errors.js";
import { writeFileAtomic } from "../util/files.js";
import { bound, mergeEntry, validEntry, type Entry } from "./merge.js";
import type { LearnSettings } from "./model.js";

/** The most a learning file holds; past it, the rows least recently taught go first (merge.ts `bound`). */
export const LEARN_FILE_MAX_BYTES = 8 << 20;
/** A change waits this long, so a burst of learning is one write. */
const WRITE_DELAY_MS = 2000;
/** And writes come at most this often. */
const WRITE_EVERY_MS = 10_000;
/** How often the file is checked for another process's write. */
const RELOAD_MS = 2000;
/** Learning files of configs not started for this long are removed when another is written. */
const UNUSED_FOR_MS = 365 * 86_400_000;

const FORMAT = "metatools-learning";

export interface LearnedFileOptions {
  settings: LearnSettings;
  /** Default LEARN_FILE_MAX_BYTES. */
  maxBytes?: number;
  /** Told once per problem: a file not valid, a write that failed. */
  warn?: (message: string) => void;
}

/** The learning file of a config file: in the cache folder, one per config (as the tool snapshots are). */
export function learningFile(cacheDir: string, configFile: string): string {
  return join(cacheDir, "learned", `${createHash("sha256").update(configFile).digest("hex").slice(0, 16)}.json`);
}

export class LearnedFileStore implements KeyValue {
  readonly kind = "memory" as const;
  private entries = new Map<string, Entry>();
  /** For each key changed since the file was last read or written: its value then (the merge's base). */
  private readonly changed = new Map<string, Entry | undefined>();
  /** The file as last read or written (inode, size, mtime); undefined before the first read. */
  private stamp: string | undefined;
  private lastWrite = 0;
  private timer: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  /** Problems already told (a bound reached, a write that failed): once each until they pass. */
  private readonly told = new Set<string>();
  /** The file on disk is not valid: written at the next flush even with nothing changed. */
  private replace = false;
  private closed = false;
  private readonly maxBytes: number;

  constructor(
    readonly file: string,
    private readonly options: LearnedFileOptions,
  ) {
    this.maxBytes = options.maxBytes ?? LEARN_FILE_MAX_BYTES;
  }

  get where(): string {
    return this.file;
  }

  /**
   * Reads the file now (at start: a file not valid is reported then, not at the first search); with `watch`, reads it
   * again every RELOAD_MS when another process wrote it, until closed (a server; a command reads it once).
   */
  load(watch = false): void {
    this.sync();
    if (watch) this.poll ??= setInterval(() => this.sync(), RELOAD_MS).unref();
  }

  get<T>(key: string): Promise<T | undefined> {
    this.loaded();
    const entry = this.live(key);
    return Promise.resolve(entry && (structuredClone(entry.value) as T));
  }

  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.loaded();
    this.change(key, { value: JSON.parse(JSON.stringify(value)) as unknown, expires: Date.now() + ttlMs });
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.loaded();
    this.change(key, undefined);
    return Promise.resolve();
  }

  increment(key: string, ttlMs: number): Promise<number> {
    this.loaded();
    const count = ((this.live(key)?.value as number | undefined) ?? 0) + 1;
    this.change(key, { value: count, expires: Date.now() + ttlMs });
    return Promise.resolve(count);
  }

  /** Writes what changed (and then writes each later change at once: the server is stopping). */
  close(): Promise<void> {
    clearInterval(this.poll);
    this.closed = true;
    this.flush();
    return Promise.resolve();
  }

  /** Writes what changed since the last write now, merged over what another process wrote meanwhile. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.changed.size && !this.replace) return;
    this.sync();
    const now = Date.now();
    const dropped = bound(this.entries, this.maxBytes, now);
    if (dropped) this.warnOnce("bound", `learning: ${this.file} reached its bound (${this.maxBytes} bytes); the rows least recently taught go first`);
    const file = {
      format: FORMAT,
      version: 1,
      savedAt: new Date(now).toISOString(),
      entries: Object.fromEntries([...this.entries].map(([k, e]) => [k, [e.value, e.expires]])),
    };
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      // Terms of queries and tool ids: readable by the user alone.
      writeFileAtomic(this.file, JSON.stringify(file), 0o600);
      this.stamp = stampOf(this.file);
      this.changed.clear();
      this.replace = false;
      this.lastWrite = now;
      this.told.delete("write");
      pruneUnused(dirname(this.file), now);
    } catch (error) {
      // Kept in memory, and tried again with the next change.
      this.warnOnce("write", `learning: could not write ${this.file} (${errorMessage(error)}); what was learned is kept in this process meanwhile`);
    }
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    return entry && entry.expires > Date.now() ? entry : undefined;
  }

  private change(key: string, entry: Entry | undefined): void {
    if (!this.changed.has(key)) this.changed.set(key, this.entries.get(key));
    if (entry) this.entries.set(key, entry);
    else this.entries.delete(key);
    if (this.closed) return this.flush();
    this.timer ??= setTimeout(() => this.flush(), Math.max(WRITE_DELAY_MS, this.lastWrite + WRITE_EVERY_MS - Date.now()));
    this.timer.unref();
  }

  /** The file is read at the first operation, if `load` did not read it. */
  private loaded(): void {
    if (this.stamp === undefined) this.sync();
  }

  /** Reads the file again when another process wrote it since it was last read or written, keeping this process's changes. */
  private sync(): void {
    const at = Date.now();
    const stamp = stampOf(this.file);
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const disk = this.read(stamp);
    // A file not valid holds nothing to keep: what this process holds is the best copy, written over it.
    if (!disk) return;
    for (const [key, base] of this.changed) {
      const merged = mergeEntry(key, disk.get(key), base, this.entries.get(key), at, this.options.settings);
      this.changed.set(key, disk.get(key));
      if (merged) disk.set(key, merged);
      else disk.delete(key);
    }
    bound(disk, this.maxBytes, at);
    this.entries = disk;
  }

  /** The file's entries (none when it is missing); undefined, reported, when it is not a valid learning file. */
  private read(stamp: string): Map<string, Entry> | undefined {
    if (stamp === "missing") return new Map();
    const invalid = (why: string) => {
      this.replace = true;
      this.warn(`learning: ${this.file} is not a valid learning file (${why}); search learns from nothing again, and the file is replaced at the next write`);
      return undefined;
    };
    let raw: unknown;
    try {
      if (statSync(this.file).size > 2 * this.maxBytes) return invalid(`larger than ${2 * this.maxBytes} bytes`);
      raw = JSON.parse(readFileSync(this.file, "utf8"));
    } catch (error) {
      return invalid(errorMessage(error));
    }
    const file = raw as { format?: unknown; version?: unknown; entries?: unknown } | null;
    if (file?.format !== FORMAT || file.version !== 1 || !file.entries || typeof file.entries !== "object" || Array.isArray(file.entries)) {
      return invalid(`expected {"format": "${FORMAT}", "version": 1, "entries": {…}}`);
    }
    const entries = new Map<string, Entry>();
    let skipped = 0;
    for (const [key, pair] of Object.entries(file.entries as Record<string, unknown>)) {
      const ok = Array.isArray(pair) && pair.length === 2 && Number.isFinite(pair[1]) && validEntry(key, pair[0]);
      if (ok) entries.set(key, { value: pair[0] as unknown, expires: pair[1] as number });
      else skipped++;
    }
    if (skipped) {
      this.replace = true;
      this.warn(`learning: ${this.file}: ${skipped} entries not valid were dropped; the file is replaced at the next write`);
    }
    return entries;
  }

  private warn(message: string): void {
    this.options.warn?.(message);
  }

  private warnOnce(problem: string, message: string): void {
    if (this.told.has(problem)) return;
    this.told.add(problem);
    this.warn(message);
  }
}

/** The learning files of configs not started for a year go: the folder does not grow with every config ever served. */
function pruneUnused(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (name.endsWith(".json") && now - statSync(file).mtimeMs > UNUSED_FOR_MS) rmSync(file, { force: true });
  }
}
