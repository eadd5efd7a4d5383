/**
 * Large namespaces' prepared search indexes, kept on disk so a restart
 * does not analyze 10,000 tools again: one file per namespace of a config,
 * holding the index built for a key that hashes the namespace's search
 * documents, the analyzer and the ranking's tuning. Another key (the tools
 * changed, or a new version analyzes or weighs differently) means the file
 * is not used and the index is built, then written over it.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../util/files.js";
import { createAnalyzer } from "../text/analyze.js";
import { SEARCH_FIELDS, type SearchDocument } from "./documents.js";
import { decodeNamespace, encodeNamespace, type PreparedNamespace } from "./segment-file.js";
import { TUNING } from "./tuning.js";

/**
 * Namespaces of this many tools or more are taken from the cache by their
 * tool ids at a start, and checked against their documents a moment later
 * (hashing 10,000 documents first costs a tenth of a second). A smaller one
 * is hashed at once and taken only for its very documents: even a few
 * tools are read from their file faster than a command that has just
 * started analyzes them (16 ms for 40 tools in a CLI search).
 */
export const EARLY_MIN_TOOLS = 1000;

/** A file not used for this long is removed when another is written. */
const UNUSED_FOR_MS = 30 * 24 * 3600_000;

/** Words that exercise every step of analysis: a change to any step changes their terms, and so every key. */
const PROBE = "Creating HTMLParser issues for getUserID in café mind-maps: files 2024 of the runs, deprecated";

export class IndexCache {
  private readonly pending = new Map<string, PreparedNamespace>();
  private timer: NodeJS.Timeout | undefined;
  private salted: { salt: string; key: string } | undefined;
  /** How long after a start an index taken for its tools' ids is checked against their documents. */
  readonly checkAfterMs: number;

  /** `dir`: where files go; `scope`: what the namespaces belong to (the config file), so two configs' namespaces of one name do not collide. */
  constructor(
    private readonly dir: string,
    private readonly scope: string,
    private readonly version: string,
    options: { checkAfterMs?: number } = {},
  ) {
    this.checkAfterMs = options.checkAfterMs ?? 1000;
  }

  /** What every key starts from (`indexSalt`), computed when first needed: most configs have no namespace this large. */
  private get salt(): string {
    return this.salting().salt;
  }

  /** The salt hashed: an index kept by another version, analyzer or tuning has another. */
  private get saltKey(): string {
    return this.salting().key;
  }

  private salting(): { salt: string; key: string } {
    if (!this.salted) {
      const salt = indexSalt(this.version);
      this.salted = { salt, key: createHash("sha256").update(salt).digest("hex") };
    }
    return this.salted;
  }

  /** Stamps what a namespace's index was built under, for `save`. */
  stamp(key: string): { key: string; salt: string } {
    return { key, salt: this.saltKey };
  }

  /** What a namespace's index is built from, hashed: every field of every document, in order, hashed as one string. */
  keyOf(docs: readonly SearchDocument[]): string {
    const parts: string[] = [this.salt];
    for (const doc of docs) {
      parts.push(doc.id, String(doc.prior ?? 1));
      for (const field of SEARCH_FIELDS) parts.push(doc[field]);
    }
    return createHash("sha256").update(parts.join("\u0000")).digest("hex");
  }

  /** The namespace's prepared index, when the one kept was built for `key`. */
  load(namespace: string, key: string): PreparedNamespace | undefined {
    return this.kept(namespace, (prepared) => prepared.key === key);
  }

  /**
   * The namespace's prepared index, when the one kept holds these very
   * tools (by id, in order) and this analyzer built it: at a start, where
   * hashing every document first would cost a tenth of a second. The caller
   * checks it against the documents (`keyOf`) soon after.
   */
  loadFor(namespace: string, ids: readonly string[]): PreparedNamespace | undefined {
    return this.kept(namespace, (prepared) => prepared.salt === this.saltKey && sameIds(prepared.segment.ids, ids));
  }

  private kept(namespace: string, wanted: (prepared: PreparedNamespace) => boolean): PreparedNamespace | undefined {
    const waiting = this.pending.get(namespace);
    if (waiting) return wanted(waiting) ? waiting : undefined;
    try {
      const file = this.fileOf(namespace);
      const prepared = decodeNamespace(readFileSync(file));
      if (!prepared || !wanted(prepared)) return undefined;
      // Used: kept from pruning for another month.
      const now = new Date();
      utimesSync(file, now, now);
      return prepared;
    } catch {
      return undefined;
    }
  }

  /** Keeps a namespace's index; written shortly after (a burst of changes costs one write), or at `flush`. */
  save(namespace: string, prepared: PreparedNamespace): void {
    this.pending.set(namespace, prepared);
    this.timer ??= setTimeout(() => this.flush(), 1000);
    this.timer.unref();
  }

  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.pending.size) return;
    for (const [namespace, prepared] of this.pending) {
      try {
        mkdirSync(this.dir, { recursive: true });
        writeFileAtomic(this.fileOf(namespace), encodeNamespace(prepared));
      } catch {
        // An optimisation only: without the file, the next start builds the index.
      }
    }
    this.pending.clear();
    this.prune();
  }

  /** Files of configs not started for a month (moved, deleted, temporary) go: the folder does not grow forever. */
  private prune(): void {
    try {
      const now = Date.now();
      for (const name of readdirSync(this.dir)) {
        const file = join(this.dir, name);
        if (name.endsWith(".idx") && now - statSync(file).mtimeMs > UNUSED_FOR_MS) rmSync(file, { force: true });
      }
    } catch {
      // Another process pruning the same folder, or none yet.
    }
  }

  private fileOf(namespace: string): string {
    return join(this.dir, `${createHash("sha256").update(`${this.scope}\0${namespace}`).digest("hex").slice(0, 24)}.idx`);
  }
}

/**
 * What an index is built under: the version, the analyzer (its terms for
 * PROBE) and the whole tuning object (tuning.ts), so a constant added there,
 * an index-time prior or a query-time weight alike, is covered without being
 * listed: an index built under another value is never served.
 */
export function indexSalt(version: string, tuning: object = TUNING): string {
  return JSON.stringify([version, createAnalyzer().analyze(PROBE), tuning], asJson);
}

/** What JSON would drop or blur, spelled out: a Set's members (sorted), a Map's entries (by key), Infinity and NaN. */
function asJson(_key: string, value: unknown): unknown {
  if (value instanceof Set) return [...(value as Set<unknown>)].map(String).sort();
  if (value instanceof Map) return [...(value as Map<unknown, unknown>)].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
  return typeof value === "number" && !Number.isFinite(value) ? String(value) : value;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
