/**
 * Result cache: which tools may be cached, under what key, and for how
 * long. Only results of read-only or idempotent tools (by annotations or
 * the catalog) are kept, never a destructive tool's and never an error.
 * A successful call to a tool that may write bumps its namespace's
 * generation, which retires every result cached from that namespace before
 * it: a file written through metatools is never read back stale. The
 * generation lives in the store, so replicas sharing Redis agree on it.
 */
import { createHash, randomBytes } from "node:crypto";
import type { ToolCallResult } from "../backends/types.js";
import type { CacheConfig } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { KeyValue } from "../store/kv.js";
import { canonicalJson } from "../util/canonical-json.js";
import type { Logger } from "../util/log.js";

export type CacheMode = "use" | "refresh" | "bypass";
/** What the cache did for one call: served it (hit), missed, was told to skip reading (refresh) or both (bypass), or does not apply (off). */
export type CacheStatus = "hit" | "miss" | "refresh" | "bypass" | "off";

export interface CachePolicy {
  cacheable: boolean;
  ttlMs: number;
  /** Why not, when not cacheable. */
  reason?: string;
}

interface Entry {
  /** The namespace generation the result was read under. */
  gen: string;
  at: number;
  result: ToolCallResult;
}

/** A cache lookup: the hit, if any, and the generation to save a fresh result under. */
export interface Lookup {
  key: string;
  gen: string;
  hit?: { result: ToolCallResult; ageMs: number };
}

/** How long a namespace generation is remembered: far longer than any result lives. */
const GENERATION_TTL_MS = 7 * 24 * 3_600_000;
/** Store failures are logged at most this often. */
const LOG_EVERY_MS = 30_000;

export class ResultCache {
  private lastLogged = 0;

  constructor(
    private readonly store: KeyValue,
    private readonly config: CacheConfig,
    private readonly logger: Logger,
  ) {}

  policy(record: ToolRecord): CachePolicy {
    const ttlMs = record.cache.ttlMs ?? this.config.ttlMs;
    const { readOnlyHint, idempotentHint, destructiveHint } = record.annotations;
    if (!this.config.enabled) return { cacheable: false, ttlMs, reason: "the cache is disabled (metatools.cache.enabled)" };
    if (destructiveHint === true && readOnlyHint !== true) return { cacheable: false, ttlMs, reason: "the tool is destructive" };
    if (record.cache.policy === "never") return { cacheable: false, ttlMs, reason: "its catalog entry says never" };
    if (record.cache.policy === "always" || readOnlyHint === true || idempotentHint === true) return { cacheable: true, ttlMs };
    return { cacheable: false, ttlMs, reason: "the tool is not marked read-only or idempotent" };
  }

  /** Reads the cached result and the namespace generation in parallel. A store failure counts as a miss. */
  async lookup(record: ToolRecord, args: Record<string, unknown>, read: boolean): Promise<Lookup> {
    const key = resultKey(record.id, args);
    try {
      const [gen, entry] = await Promise.all([this.store.get<string>(genKey(record.namespace)), read ? this.store.get<Entry>(key) : undefined]);
      const current = gen ?? "0";
      if (entry && entry.gen === current) return { key, gen: current, hit: { result: entry.result, ageMs: Math.max(0, Date.now() - entry.at) } };
      return { key, gen: current };
    } catch (error) {
      this.report("read", error);
      return { key, gen: "unknown" };
    }
  }

  /** Keeps a successful result, unless it is too large or its generation could not be read. */
  async save(lookup: Lookup, result: ToolCallResult, ttlMs: number): Promise<boolean> {
    if (result.isError || lookup.gen === "unknown") return false;
    const entry: Entry = { gen: lookup.gen, at: Date.now(), result };
    if (JSON.stringify(entry).length > this.config.maxEntryBytes) return false;
    try {
      await this.store.set(lookup.key, entry, ttlMs);
      return true;
    } catch (error) {
      this.report("write", error);
      return false;
    }
  }

  /** Retires every result cached from `namespace` so far; returns the new generation ("unknown" if the store failed). */
  async invalidate(namespace: string): Promise<string> {
    const gen = randomBytes(6).toString("base64url");
    try {
      await this.store.set(genKey(namespace), gen, GENERATION_TTL_MS);
      return gen;
    } catch (error) {
      this.report("invalidate", error);
      return "unknown";
    }
  }

  private report(what: string, error: unknown): void {
    if (Date.now() - this.lastLogged < LOG_EVERY_MS) return;
    this.lastLogged = Date.now();
    this.logger.warn(`cache ${what} failed, calls go to the backends meanwhile: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `r:<tool id>:<hash of the canonical arguments>`: short, and the same for the same arguments in any key order. */
export function resultKey(toolId: string, args: Record<string, unknown>): string {
  return `r:${toolId}:${createHash("sha256").update(canonicalJson(args)).digest("base64url").slice(0, 32)}`;
}

function genKey(namespace: string): string {
  return `g:${namespace}`;
}
