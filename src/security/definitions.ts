/**
 * The definitions the lock file pins, kept so a person can see what changed
 * when a pinned tool changes (`metatools approve --show`): the lock file is
 * the operator's file, sorted and meant to be diffed, so it holds only
 * hashes; the definitions are files in the cache folder, one per hash
 * (`<cache>/definitions/<lock>/<sha256 hex>.json`, one folder per lock file).
 *
 * A cache anyone who can write the folder can edit: a file is believed only
 * when its definition hashes to its name, and is read without following a
 * link, within a size cap. Bounded by the lock file: when the lock is
 * written, a definition no pin of it names (pruned, or replaced by an
 * approval) is removed once it is `UNREFERENCED_GRACE_MS` old (another
 * process may have kept it for a pin it has not written yet), and the
 * folders of lock files not used for a month go. A pin made before
 * definitions were kept, or on another machine, has none: the reader is told
 * so. Written in the background, at most `DEFINITIONS_WRITE_DELAY_MS` after
 * they are kept, and whenever the lock file is saved.
 */
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { UpstreamTool } from "../model/tool.js";
import { errorMessage } from "../util/errors.js";
import { writeFileAtomic } from "../util/files.js";
import { definitionHash, definitionOf, type Definition } from "./definition.js";

/** How long kept definitions wait to be written: a first listing of 10,000 tools is one burst of writes, off the listing's path. */
export const DEFINITIONS_WRITE_DELAY_MS = 1000;
/** A definition no pin names is removed only past this age: longer than a lock file's write delay, so another process's pin not yet written keeps its definition. */
export const UNREFERENCED_GRACE_MS = 60_000;
/** The folder of a lock file not used for this long is removed when another lock's definitions are swept. */
const UNUSED_FOR_MS = 30 * 24 * 3600_000;
/** The largest file read back: a definition is at most a few hundred KB; anything larger was not written here. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
/** Files written in one turn of the event loop in the background. */
const WRITE_BATCH = 500;
const FORMAT = 1;
const HASH = /^sha256:([0-9a-f]{64})$/;

/** What is kept of a pinned definition. */
export type Kept =
  | { status: "kept"; definition: Definition }
  /** None was kept: pinned by an earlier release, on another machine (the lock file is committed), or removed with the cache. */
  | { status: "missing" }
  /** A file is there but is not believed: `problem` says why. */
  | { status: "invalid"; problem: string };

export interface DefinitionStoreOptions {
  /** Where a failed write or sweep is reported; definitions are a review aid, never a reason to stop. */
  onError?: (error: unknown) => void;
  /** Default `UNREFERENCED_GRACE_MS`. */
  graceMs?: number;
  /** Default `DEFINITIONS_WRITE_DELAY_MS`. */
  writeDelayMs?: number;
}

export class DefinitionStore {
  /** The hashes with a file, as listed when first needed and kept up since. */
  private onDisk: Set<string> | undefined;
  private readonly queue = new Map<string, Definition>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly dir: string,
    private readonly options: DefinitionStoreOptions = {},
  ) {}

  /** Keeps the definition pinned as `hash` (a tool whose definition hashes to it); nothing when one is kept already. */
  keep(hash: string, tool: UpstreamTool): void {
    if (!HASH.test(hash) || this.queue.has(hash) || this.stored().has(hash)) return;
    this.queue.set(hash, definitionOf(tool));
    this.schedule(this.options.writeDelayMs ?? DEFINITIONS_WRITE_DELAY_MS);
  }

  /** Writes everything kept since the last write, now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.write(Infinity);
  }

  /** In the background, `WRITE_BATCH` files a turn: a first listing of 10,000 tools (about 0.4 s of writes) never holds the event loop long. */
  private schedule(delayMs: number): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.write(WRITE_BATCH);
      if (this.queue.size) this.schedule(0);
    }, delayMs);
    this.timer.unref();
  }

  private write(max: number): void {
    if (!this.queue.size) return;
    const batch = [...this.queue].slice(0, max);
    // Dropped even when a write fails (a read-only cache): they are a review aid, kept again the next time their tools are listed.
    for (const [hash] of batch) this.queue.delete(hash);
    try {
      mkdirSync(this.dir, { recursive: true });
      for (const [hash, definition] of batch) {
        writeFileAtomic(this.fileOf(hash)!, `${JSON.stringify({ version: FORMAT, hash, definition })}\n`);
        this.stored().add(hash);
      }
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** The definition pinned as `hash`, if one was kept and is still what was kept. */
  read(hash: string): Kept {
    const waiting = this.queue.get(hash);
    if (waiting) return { status: "kept", definition: waiting };
    const file = this.fileOf(hash);
    if (!file) return { status: "invalid", problem: `"${hash}" is not a SHA-256 definition hash` };
    let text: string;
    try {
      text = readSmallFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return { status: "missing" };
      return { status: "invalid", problem: code === "ELOOP" ? `${file} is a symbolic link: ignored` : `${file} could not be read: ${errorMessage(error)}` };
    }
    let definition: unknown;
    try {
      const parsed = JSON.parse(text) as { version?: unknown; definition?: unknown } | null;
      definition = parsed?.version === FORMAT ? parsed.definition : undefined;
    } catch {
      // Said below.
    }
    if (!wellFormed(definition)) return { status: "invalid", problem: `${file} does not hold a definition: ignored` };
    if (definitionHash(definition) !== hash)
      return { status: "invalid", problem: `${file} holds a definition that does not hash to its name (edited or damaged): ignored` };
    return { status: "kept", definition };
  }

  /**
   * The lock file was saved, holding `pinned` (hashes): what was kept is
   * written now (an approval, a close) or, after the background save, in
   * background batches (a first listing of 100,000 tools is 100,000 files:
   * seconds the event loop must not be held for); and when the file was
   * written (a pin added, replaced or pruned), the definitions no pin names
   * are removed (never one still queued).
   */
  lockSaved(pinned: Iterable<string>, wrote: boolean, later = false): void {
    if (later) this.schedule(0);
    else this.flush();
    if (!wrote) return;
    try {
      this.sweep(new Set(pinned));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /** Removes definitions no pin names (past the grace period), and the folders of lock files not used for a month. */
  sweep(pinned: ReadonlySet<string>, now = Date.now()): void {
    const grace = this.options.graceMs ?? UNREFERENCED_GRACE_MS;
    for (const name of list(this.dir)) {
      const hash = name.endsWith(".json") ? `sha256:${name.slice(0, -5)}` : undefined;
      const stray = name.startsWith(".") && name.endsWith(".tmp");
      if (hash ? pinned.has(hash) || this.queue.has(hash) : !stray) continue;
      const file = join(this.dir, name);
      if (ageOf(file, now) < grace) continue;
      rmSync(file, { force: true });
      if (hash) this.onDisk?.delete(hash);
    }
    const parent = dirname(this.dir);
    for (const name of list(parent)) {
      const folder = join(parent, name);
      if (name !== basename(this.dir) && ageOf(folder, now) > UNUSED_FOR_MS) rmSync(folder, { recursive: true, force: true });
    }
  }

  /** The hashes on disk, read once; the folder is marked used, so another lock's sweep leaves it for a month. */
  private stored(): Set<string> {
    if (this.onDisk) return this.onDisk;
    this.onDisk = new Set(list(this.dir).flatMap((name) => (name.endsWith(".json") ? [`sha256:${name.slice(0, -5)}`] : [])));
    try {
      const now = new Date();
      utimesSync(this.dir, now, now);
    } catch {
      // Not made yet: the first write makes it.
    }
    return this.onDisk;
  }

  private fileOf(hash: string): string | undefined {
    const hex = HASH.exec(hash)?.[1];
    return hex ? join(this.dir, `${hex}.json`) : undefined;
  }
}

/** The folder of one lock file's definitions, in the cache folder. */
export function definitionsDir(cacheDir: string, lockFile: string): string {
  return join(cacheDir, "definitions", createHash("sha256").update(lockFile).digest("hex").slice(0, 16));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Milliseconds since `path` was last modified; 0 when it is gone (another process removed it first). */
function ageOf(path: string, now: number): number {
  try {
    return now - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** A regular file's text, never through a link, never past MAX_FILE_BYTES (a FIFO or a huge file planted at the name is refused, not waited on). */
function readSmallFile(file: string): string {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error("not a regular file");
    if (stat.size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
    return readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** What a hand-edited file must hold to be hashed and shown: a tool with a name and, where present, schemas and annotations that are objects. */
function wellFormed(value: unknown): value is Definition {
  const d = value as Record<string, unknown> | null;
  const optional = (key: string, type: "string" | "object") =>
    d![key] === undefined || (type === "object" ? typeof d![key] === "object" && d![key] !== null && !Array.isArray(d![key]) : typeof d![key] === type);
  return (
    typeof d === "object" &&
    d !== null &&
    !Array.isArray(d) &&
    typeof d.name === "string" &&
    optional("title", "string") &&
    optional("description", "string") &&
    optional("inputSchema", "object") &&
    optional("outputSchema", "object") &&
    optional("annotations", "object")
  );
}
