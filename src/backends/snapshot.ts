/**
 * Each backend's last tool list, kept on disk: `serve` indexes it at once
 * and serves search and describe while the backend connects, and the CLI's
 * `search` and `describe` answer from it without starting any backend.
 * Beside the lists, the backends whose last start failed, with why: the
 * CLI does not start one again until `timeouts.failureMemoryMs` has passed.
 * An entry counts only for the same backend config (its identity hash),
 * and is replaced by whatever the backend lists when it connects. The file
 * is a cache, not a source of trust: its tools go through the gate before
 * they are served (each checked against the hash recorded beside it, the
 * unpinned ones scanned), and are never pinned (security/gate.ts).
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { dirname, join } from "node:path";
import type { BackendSpec } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import { writeFileAtomic } from "../util/files.js";
import type { BackendInfo } from "./types.js";

export interface SnapshotEntry {
  /** The backend config it was listed under (hash): another config's list is never used. */
  identity: string;
  info?: BackendInfo;
  tools: UpstreamTool[];
  /** Each tool's definition hash, as the gate computed it: claimed at the next start and checked after (gate.ts). */
  hashes?: (string | undefined)[];
  savedAt: string;
}

/** A backend whose last start failed: remembered, so the next commands answer without starting it again. */
export interface RememberedFailure {
  /** The backend config it failed under (hash): a config edited since is tried again at once. */
  identity: string;
  error: string;
  /** What a person must do, when the failure said (a program not on PATH). */
  fix?: string;
  /** When it failed (ISO time). */
  at: string;
}

interface SnapshotFile {
  version: 1;
  backends: Record<string, SnapshotEntry>;
  /** By namespace; added after version 1 was written, so optional. */
  failures?: Record<string, RememberedFailure>;
}

/** Writes are gathered for this long, so a burst of list changes costs one write. */
const WRITE_DELAY_MS = 200;
/** And come at most this often: a backend that renames its tools every few seconds does not rewrite the file each time. */
const WRITE_EVERY_MS = 10_000;
/** Snapshots of configs not started for this long (moved, deleted, temporary) are removed when another is written. */
const UNUSED_FOR_MS = 30 * 24 * 3600_000;

export class ToolSnapshot {
  private data: SnapshotFile | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Set since the last write: a start that changes nothing writes nothing. */
  private dirty = false;
  private lastWrite = 0;

  /** `file`: where the snapshot lives; undefined keeps nothing (no config file). */
  constructor(readonly file: string | undefined) {}

  /** The stored list of a backend, when it was listed under the same config. */
  get(spec: BackendSpec): SnapshotEntry | undefined {
    const entry = this.load().backends[spec.namespace];
    if (!entry || entry.identity !== identityOf(spec) || !wellFormed(entry)) return undefined;
    // Always with hashes (one per tool, undefined where none was recorded): every tool read here is marked as the snapshot's by the gate (gate.ts claim).
    return { ...entry, hashes: entry.tools.map((_, i) => (typeof entry.hashes?.[i] === "string" ? entry.hashes[i] : undefined)) };
  }

  set(spec: BackendSpec, tools: readonly UpstreamTool[], info: BackendInfo | undefined, hashes?: readonly string[]): void {
    if (!this.file) return;
    const entry: SnapshotEntry = {
      identity: identityOf(spec),
      ...(info ? { info } : {}),
      tools: [...tools],
      ...(hashes ? { hashes: [...hashes] } : {}),
      savedAt: "",
    };
    const old = this.load().backends[spec.namespace];
    // The same list as last time (the usual start) is not written again.
    if (old && JSON.stringify({ ...old, savedAt: "" }) === JSON.stringify(entry)) return;
    this.load().backends[spec.namespace] = { ...entry, savedAt: new Date().toISOString() };
    this.changed();
  }

  /** The failure remembered for a backend under the same config, while it is less than `forMs` old. */
  failure(spec: BackendSpec, forMs: number): RememberedFailure | undefined {
    const failure = this.load().failures?.[spec.namespace];
    if (!failure || failure.identity !== identityOf(spec) || typeof failure.error !== "string") return undefined;
    const age = Date.now() - Date.parse(failure.at);
    return age >= 0 && age < forMs ? failure : undefined;
  }

  /** Remembers that a backend failed to start, with why; `undefined`: that it started, which forgets its failure. */
  setFailure(spec: BackendSpec, failure: Pick<RememberedFailure, "error" | "fix"> | undefined): void {
    if (!this.file) return;
    const data = this.load();
    if (failure) data.failures = { ...data.failures, [spec.namespace]: { identity: identityOf(spec), ...failure, at: new Date().toISOString() } };
    else if (data.failures?.[spec.namespace]) delete data.failures[spec.namespace];
    else return;
    this.changed();
  }

  /**
   * Keeps only the backends of the config as it is now: a server removed
   * from the config (or renamed) takes its entry with it at the next write.
   */
  retain(namespaces: Iterable<string>): void {
    const keep = new Set(namespaces);
    for (const kept of [this.load().backends, this.load().failures ?? {}]) {
      for (const namespace of Object.keys(kept)) {
        if (keep.has(namespace)) continue;
        delete kept[namespace];
        this.dirty = true;
      }
    }
  }

  /** A write is due: gathered with the others of the next moment, and no sooner than WRITE_EVERY_MS after the last. */
  private changed(): void {
    this.dirty = true;
    this.timer ??= setTimeout(() => this.flush(), Math.max(WRITE_DELAY_MS, this.lastWrite + WRITE_EVERY_MS - Date.now()));
    this.timer.unref();
  }

  /** Writes what is pending now (on close). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.file || !this.data || !this.dirty) return;
    this.dirty = false;
    this.lastWrite = Date.now();
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileAtomic(this.file, JSON.stringify(this.data));
      pruneUnused(dirname(this.file));
    } catch {
      // A snapshot is an optimisation: without it, backends are listed as they connect.
    }
  }

  private load(): SnapshotFile {
    if (this.data) return this.data;
    this.data = { version: 1, backends: {} };
    if (!this.file) return this.data;
    try {
      const parsed = JSON.parse(readFileSync(this.file, "utf8")) as SnapshotFile;
      if (parsed?.version === 1 && parsed.backends && typeof parsed.backends === "object") this.data = parsed;
      // Used: kept from pruning for another month, though a start that changes nothing writes nothing.
      const now = new Date();
      utimesSync(this.file, now, now);
    } catch {
      // None yet, or unreadable: start empty.
    }
    return this.data;
  }
}

/** The snapshots of configs not started for a month go: the folder does not grow with every config ever served. */
function pruneUnused(dir: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (name.endsWith(".json") && now - statSync(file).mtimeMs > UNUSED_FOR_MS) rmSync(file, { force: true });
  }
}

/** A file edited by hand may hold anything: an entry is used only if each tool has a name and an object schema. */
function wellFormed(entry: SnapshotEntry): boolean {
  return (
    Array.isArray(entry.tools) &&
    entry.tools.every(
      (tool) => !!tool && typeof tool === "object" && typeof tool.name === "string" && !!tool.inputSchema && typeof tool.inputSchema === "object",
    )
  );
}

/** What makes two backend configs the same server: everything but timeouts. */
export function identityOf(spec: BackendSpec): string {
  const { connectTimeoutMs: _c, callTimeoutMs: _t, ...what } = spec;
  return createHash("sha256").update(JSON.stringify(what)).digest("hex").slice(0, 16);
}

/** The snapshot of a config file: in the cache folder, one per config. */
export function snapshotFile(cacheDir: string, configFile: string | undefined): string | undefined {
  if (!configFile) return undefined;
  return join(cacheDir, "snapshots", `${createHash("sha256").update(configFile).digest("hex").slice(0, 16)}.json`);
}
