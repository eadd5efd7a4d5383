/**
 * A store of values each owned by one principal, with a byte quota per
 * owner and a bound on the total: what keeps output handles' promise when
 * several callers share one store. An owner over its quota loses its own
 * oldest values first, never another owner's; a value that would take the
 * store past its total is refused, also never at another owner's expense.
 * A value evicted this way is remembered until it would have expired, so
 * its owner can be told why it is gone; to anyone else it is a plain miss,
 * the same as a value that never existed.
 *
 * Two implementations share these rules: in this process (memory, SQLite;
 * quota-local.ts) and one Lua script per operation on Redis, atomic across
 * every replica sharing it (quota-redis.ts).
 */
import type { StoreKind } from "./kv.js";
import { StoreError } from "./kv.js";

export interface QuotaLimits {
  /** Bytes one owner's values may take together; its oldest go first past it. */
  ownerBytes: number;
  /** Bytes all owners' values may take together; past it a new value is refused. */
  totalBytes: number;
  /** The settings behind the two bounds, as refusals name them. Default the output store's (`metatools.outputs.principalBytes`, `…totalBytes`). */
  settings?: { owner: string; total: string };
}

/** What one read finds: the value, or why there is none. */
export type Lookup<T> =
  | { kind: "found"; value: T }
  /** Taken out to make room for its owner's later values, before it would have expired. */
  | { kind: "evicted" }
  /** Accounted as live, yet gone from the store: the store dropped it itself (Redis at maxmemory with an evicting policy). */
  | { kind: "dropped" }
  /** Expired, never stored, or another owner's. */
  | { kind: "missing" };

export interface Stored {
  /** Bytes it is accounted for (its JSON, its key and the bookkeeping beside it). */
  bytes: number;
  /** Bytes of further values its owner can store before this one may be evicted: the quota less its own size. */
  room: number;
  /** Bytes the owner holds now, this one included. */
  used: number;
}

export interface QuotaStore {
  readonly kind: StoreKind;
  /** Where it lives, for messages (passwords masked). */
  readonly where: string;
  readonly limits: QuotaLimits;
  /**
   * Stores `value` under `id` for `owner` for `ttlMs`, evicting the owner's oldest values as its quota needs. A value
   * the owner holds under `id` already is replaced (it counts no more, and the new one is the owner's newest).
   * Rejects with a StoreError: `store_full` when the value alone is over the quota or the total bound would be passed
   * (nothing is evicted then), `store_unavailable` when the store fails.
   */
  put(owner: string, id: string, value: unknown, ttlMs: number): Promise<Stored>;
  get<T>(owner: string, id: string): Promise<Lookup<T>>;
  /** A warning for the operator when the store itself may drop what is kept (Redis: no maxmemory, an evicting policy). */
  advice?(): Promise<string | undefined>;
}

/**
 * Accounted per value beyond its JSON: the wrapper keyv puts around it,
 * its key, its entries in the bookkeeping and the store's own per-key overhead. Generous, so that what
 * a store holds stays under what is accounted.
 */
export const ENTRY_OVERHEAD = 512;

/** Evictions remembered per owner (the latest), so `evicted` stays a bounded answer. */
export const MAX_REMEMBERED = 1000;

/** The key of an owner's value: the owner is part of it, so another owner's lookup is a plain miss. */
export function ownedKey(owner: string, id: string): string {
  return `${owner}/${id}`;
}

/** The JSON a value is stored as, and the bytes it is accounted for. */
export function measure(owner: string, id: string, value: unknown): { json: string; bytes: number } {
  const json = JSON.stringify(value);
  return { json, bytes: allocated(Buffer.byteLength(json, "utf8") + Buffer.byteLength(ownedKey(owner, id), "utf8")) + ENTRY_OVERHEAD };
}

/**
 * What a block of `bytes` takes once allocated: allocators (jemalloc, in
 * Redis) round a size up to one of four classes per power of two, so a
 * 3,000,000-byte value takes 3 MiB. Accounting the rounded size keeps
 * what Redis reports (MEMORY USAGE) under the bound, not 5-20% over it.
 */
export function allocated(bytes: number): number {
  if (bytes <= 64) return 64;
  const step = 2 ** Math.floor(Math.log2(bytes - 1)) / 4;
  return Math.ceil(bytes / step) * step;
}

export interface Plan {
  /** The owner's values to evict, oldest first; empty when it fits as is. */
  evict: string[];
  /** Bytes the eviction frees. */
  freed: number;
}

/**
 * Which of an owner's values make room for `bytes` more (oldest first), or
 * why it cannot be stored: the same rule the Redis script applies.
 */
export function plan(
  owned: Iterable<[id: string, bytes: number]>,
  used: number,
  total: number,
  bytes: number,
  limits: QuotaLimits,
): Plan | { refused: "over_quota" | "total_full" } {
  if (bytes > limits.ownerBytes) return { refused: "over_quota" };
  const evict: string[] = [];
  let freed = 0;
  for (const [id, size] of owned) {
    if (used - freed + bytes <= limits.ownerBytes) break;
    evict.push(id);
    freed += size;
  }
  if (total - freed + bytes > limits.totalBytes) return { refused: "total_full" };
  return { evict, freed };
}

/** The StoreError a refusal becomes, in words an agent and an operator can act on. */
export function refusal(where: string, refused: "over_quota" | "total_full", bytes: number, used: number, limits: QuotaLimits): StoreError {
  const settings = limits.settings ?? { owner: "metatools.outputs.principalBytes", total: "metatools.outputs.totalBytes" };
  const detail =
    refused === "over_quota"
      ? `a value of ${sizeWords(bytes)} is over the ${sizeWords(limits.ownerBytes)} one caller may keep (${settings.owner})`
      : `the store is at its total bound of ${sizeWords(limits.totalBytes)} (${settings.total}), held by values that expire in time; yours take ${sizeWords(used)}, and another caller's are never evicted for yours`;
  return new StoreError(where, detail, { code: "store_full" });
}

/** Bytes as a reader sees them: "62.5 MiB", "900 KiB", "512 bytes". */
export function sizeWords(bytes: number): string {
  if (bytes >= 1 << 20) return `${trim(bytes / (1 << 20))} MiB`;
  if (bytes >= 1024) return `${trim(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

/** Rounded down, so a promise made in these words is never larger than the one kept. */
function trim(n: number): string {
  return n >= 100 ? String(Math.floor(n)) : String(Math.floor(n * 10) / 10);
}
