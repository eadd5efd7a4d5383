/**
 * The learning file's entries as data (file-store.ts): each key of store.ts
 * by its kind, what a valid value of that kind is (a file edited by hand or
 * cut short may hold anything), how two processes' changes to one key are
 * merged, and how the whole is held to its bound.
 *
 * A merge is three-way: what the file holds now (`disk`, another process
 * may have written it), what it held when this process last read it
 * (`base`) and this process's value (`mine`). Evidence and counters add up
 * (disk + mine − base), so two servers on one config both keep what they
 * learned; lists are joined; the generation (a reset) is the highest.
 */
import * as z from "zod";
import { MAX_BUCKET_TERMS, MAX_QUERIES_PER_TOOL } from "./store.js";
import { mergeRows, type LearnSettings, type TermRow } from "./model.js";
import { mergeShared, type SharedRow } from "./shared.js";

/** A value as the file keeps it, with when it expires (ms since the epoch). */
export interface Entry {
  value: unknown;
  expires: number;
}

/** The kinds of key store.ts writes: the generation, daily counters, own and shared rows, kept queries, the term index, marks. */
type Kind = "gen" | "cap" | "own" | "shared" | "queries" | "index" | "mark";

const PREFIXED: Record<string, Kind> = { o: "own", s: "shared", q: "queries", index: "index", mark: "mark" };

const count = z.number().int().nonnegative();
const evidence = z.tuple([z.number().finite(), z.number().finite()]);
const VALID: Record<Kind, z.ZodType> = {
  gen: count,
  cap: count,
  own: z.record(z.string(), evidence),
  shared: z.record(z.string(), z.record(z.string(), evidence)),
  queries: z.array(z.string()),
  index: z.object({ terms: z.array(z.string()), tools: z.array(z.string()).optional() }),
  mark: z.boolean(),
};

/** The key's kind and generation (keys outside a generation have none); undefined for a key store.ts does not write. */
export function kindOf(key: string): { kind: Kind; gen?: number } | undefined {
  if (key === "gen") return { kind: "gen" };
  if (key.startsWith("cap:")) return { kind: "cap" };
  const match = /^(\d+):(o|s|q|index|mark):/.exec(key);
  return match ? { kind: PREFIXED[match[2]!]!, gen: Number(match[1]) } : undefined;
}

/** Whether `value` is what store.ts keeps under `key`. */
export function validEntry(key: string, value: unknown): boolean {
  const kind = kindOf(key)?.kind;
  return kind !== undefined && VALID[kind].safeParse(value).success;
}

/** The value of `key` after this process's change (`base` → `mine`) is laid over what the file holds now (`disk`). */
export function mergeEntry(
  key: string,
  disk: Entry | undefined,
  base: Entry | undefined,
  mine: Entry | undefined,
  now: number,
  settings: LearnSettings,
): Entry | undefined {
  // A key this process removed stays removed (store.ts removes none today); one it never had is the file's.
  if (!mine) return undefined;
  if (!disk) return base ? withValue(mine, minus(key, mine.value, base.value, now, settings)) : mine;
  const expires = Math.max(disk.expires, mine.expires);
  const [d, b, m] = [disk.value, base?.value, mine.value];
  switch (kindOf(key)?.kind) {
    case "gen":
      return { value: Math.max(d as number, m as number), expires };
    case "cap":
      return { value: (d as number) + (m as number) - ((b as number | undefined) ?? 0), expires };
    case "own":
      return { value: mergeRows(d as TermRow, b as TermRow | undefined, m as TermRow, now, settings), expires };
    case "shared":
      return { value: mergeShared(d as SharedRow, b as SharedRow | undefined, m as SharedRow, now, settings), expires };
    case "queries":
      return { value: [...new Set([...(m as string[]), ...(d as string[])])].slice(0, MAX_QUERIES_PER_TOOL), expires };
    case "index": {
      const [dl, ml] = [d as Bucket, m as Bucket];
      const join = (a: string[] = [], b: string[] = []) => [...new Set([...a, ...b])].slice(0, MAX_BUCKET_TERMS);
      return { value: { terms: join(dl.terms, ml.terms), tools: join(dl.tools, ml.tools) }, expires };
    }
    case "mark":
      return { value: (d as boolean) || (m as boolean), expires };
    default:
      return undefined;
  }
}

/** What this process added to a key the file no longer holds (another process evicted it): its own change alone. */
function minus(key: string, mine: unknown, base: unknown, now: number, settings: LearnSettings): unknown {
  const kind = kindOf(key)?.kind;
  if (kind === "cap") return Math.max(0, (mine as number) - (base as number));
  if (kind === "own") return mergeRows(undefined, base as TermRow, mine as TermRow, now, settings);
  if (kind === "shared") return mergeShared(undefined, base as SharedRow, mine as SharedRow, now, settings);
  return mine;
}

interface Bucket {
  terms: string[];
  tools?: string[];
}

function withValue(entry: Entry, value: unknown): Entry {
  return { value, expires: entry.expires };
}

/**
 * Drops from `entries` what is expired or of an older generation (a reset),
 * then, while its JSON is over `maxBytes`, the rows least recently taught
 * (down to nine tenths of the bound, so the next writes do not each evict);
 * the index stops listing the terms whose rows went. Returns how many rows went.
 */
export function bound(entries: Map<string, Entry>, maxBytes: number, now: number): number {
  const gen = (entries.get("gen")?.value as number | undefined) ?? 0;
  for (const [key, entry] of entries) {
    const kind = kindOf(key);
    if (entry.expires <= now || !kind || (kind.gen !== undefined && kind.gen < gen)) entries.delete(key);
  }
  const sizes = new Map([...entries].map(([key, entry]) => [key, key.length + JSON.stringify(entry.value).length + 24]));
  let total = [...sizes.values()].reduce((a, b) => a + b, 0);
  if (total <= maxBytes) return 0;
  const rows = [...entries]
    .filter(([key]) => ["own", "shared"].includes(kindOf(key)!.kind))
    .map(([key, entry]) => [key, newest(entry.value as TermRow | SharedRow)] as const)
    .sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]));
  let dropped = 0;
  for (const [key] of rows) {
    if (total <= maxBytes * 0.9) break;
    entries.delete(key);
    total -= sizes.get(key)!;
    dropped++;
  }
  for (const [key, entry] of entries) {
    if (kindOf(key)!.kind !== "index") continue;
    const bucket = entry.value as Bucket;
    entries.set(key, { ...entry, value: { ...bucket, terms: bucket.terms.filter((term) => entries.has(`${gen}:s:${term}`)) } });
  }
  return dropped;
}

/** When a row was last taught: its newest evidence. */
function newest(row: TermRow | SharedRow): number {
  let at = 0;
  for (const value of Object.values(row) as (TermRow[string] | SharedRow[string])[]) {
    if (Array.isArray(value)) at = Math.max(at, value[1]);
    else for (const [, when] of Object.values(value)) at = Math.max(at, when);
  }
  return at;
}
