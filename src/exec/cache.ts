/**
 * Result cache: which tools may be cached, under what key, and for how
 * long. Only results of read-only or idempotent tools (by annotations or
 * the catalog) are kept, never a destructive tool's and never an error.
 * A successful call to a tool that may write bumps its namespace's
 * generation, which retires every result cached from that namespace before
 * it: a file written through metatools is never read back stale. The
 * generation lives in the store, so replicas sharing Redis agree on it.
 * Results are cached per principal (the caller they were made for), in the
 * key itself, so replicas keep callers apart too; one cache for everyone
 * only where the config says so. A write retires every principal's results.
 */
import { createHash, randomBytes } from "node:crypto";
import type { ToolCallResult } from "../backends/types.js";
import type { CacheConfig } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { KeyValue } from "../store/kv.js";
import { canonicalJson } from "../util/canonical-json.js";
import type { Logger } from "../util/log.js";
import { errorMessage } from "../util/errors.js";

export const CACHE_MODES = ["use", "refresh", "bypass"] as const;
export type CacheMode = (typeof CACHE_MODES)[number];

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
  namespace: string;
  key: string;
  gen: string;
  hit?: { result: ToolCallResult; ageMs: number };
}

/** How long a namespace generation is remembered: far longer than any result lives. */
const GENERATION_TTL_MS = 7 * 24 * 3_600_000;
/** Store failures are logged at most this often. */
const LOG_EVERY_MS = 30_000;

/** The generation of a namespace whose state is not known (the store failed): nothing is served or saved under it. */
const UNKNOWN = "unknown";

export class ResultCache {
  private lastLogged = 0;
  /** Namespaces written to while the store was failing: their cached results may be stale until a new generation is recorded. */
  private readonly unrecorded = new Set<string>();

  /**
   * `identity(namespace)` names what is behind a namespace (its config and
   * server version), so deployments sharing a store never serve each other's
   * results for differently configured backends of the same name.
   */
  constructor(
    private readonly store: KeyValue,
    private readonly config: CacheConfig,
    private readonly logger: Logger,
    private readonly identity: (namespace: string) => string = () => "",
  ) {}

  policy(record: ToolRecord): CachePolicy {
    const ttlMs = record.cache.ttlMs ?? this.config.ttlMs;
    const { readOnlyHint, idempotentHint, destructiveHint } = record.annotations;
    if (!this.config.enabled) return { cacheable: false, ttlMs, reason: "the cache is disabled (metatools.cache.enabled)" };
    if (destructiveHint === true && readOnlyHint !== true) return { cacheable: false, ttlMs, reason: "the tool is destructive" };
    if (record.cache.policy === "never") return { cacheable: false, ttlMs, reason: "its catalog entry says never" };
    if (record.cache.policy === "always" || readOnlyHint === true) return { cacheable: true, ttlMs };
    // MCP's destructiveHint defaults to true: an idempotent write is cached only when it says it destroys nothing.
    if (idempotentHint === true && destructiveHint === false) return { cacheable: true, ttlMs };
    return { cacheable: false, ttlMs, reason: "the tool is not marked read-only, or idempotent and non-destructive" };
  }

  /**
   * Reads the cached result `principal` may be served and the namespace
   * generation, in parallel. A store failure counts as a miss, and so does
   * a namespace whose last write could not be recorded (until recording it succeeds).
   */
  async lookup(record: ToolRecord, args: Record<string, unknown>, read: boolean, principal: string): Promise<Lookup> {
    const key = resultKey(record.id, this.identity(record.namespace), args, this.config.shareAcrossPrincipals ? undefined : principal);
    const namespace = record.namespace;
    if (this.unrecorded.size && !(await this.recordPendingWrites())) return { namespace, key, gen: UNKNOWN };
    try {
      const [gen, entry] = await Promise.all([this.store.get<string>(genKey(record.namespace)), read ? this.store.get<Entry>(key) : undefined]);
      // No generation (never written, expired, evicted): start a fresh one, so nothing cached before it can match.
      const current = gen ?? (await this.invalidate(record.namespace));
      if (entry && entry.gen === current && current !== UNKNOWN)
        return { namespace, key, gen: current, hit: { result: entry.result, ageMs: Math.max(0, Date.now() - entry.at) } };
      return { namespace, key, gen: current };
    } catch (error) {
      this.report("read", error);
      return { namespace, key, gen: UNKNOWN };
    }
  }

  /**
   * Keeps a successful result, unless it is too large or its generation is
   * unknown. With `expectGen` (a write's own generation), only while that is
   * still the namespace's generation: a concurrent write wins.
   */
  async save(lookup: Lookup, result: ToolCallResult, ttlMs: number, expectGen?: string): Promise<boolean> {
    if (result.isError || lookup.gen === UNKNOWN) return false;
    const entry: Entry = { gen: lookup.gen, at: Date.now(), result };
    if (JSON.stringify(entry).length > this.config.maxEntryBytes) return false;
    try {
      if (expectGen !== undefined && (await this.store.get<string>(genKey(lookup.namespace))) !== expectGen) return false;
      await this.store.set(lookup.key, entry, ttlMs);
      return true;
    } catch (error) {
      this.report("write", error);
      return false;
    }
  }

  /**
   * Retires every result cached from `namespace` so far; returns the new
   * generation, or UNKNOWN if the store failed. A failed retirement is
   * remembered and retried before this process serves anything from cache.
   */
  async invalidate(namespace: string): Promise<string> {
    const gen = randomBytes(9).toString("base64url");
    try {
      await this.store.set(genKey(namespace), gen, GENERATION_TTL_MS);
      this.unrecorded.delete(namespace);
      return gen;
    } catch (error) {
      this.unrecorded.add(namespace);
      this.report("invalidate", error);
      return UNKNOWN;
    }
  }

  /** Retries the retirements that failed; true once none is left. */
  private async recordPendingWrites(): Promise<boolean> {
    for (const namespace of [...this.unrecorded]) if ((await this.invalidate(namespace)) === UNKNOWN) return false;
    return true;
  }

  private report(what: string, error: unknown): void {
    if (Date.now() - this.lastLogged < LOG_EVERY_MS) return;
    this.lastLogged = Date.now();
    this.logger.warn(`cache ${what} failed, calls go to the backends meanwhile: ${errorMessage(error)}`);
  }
}

/**
 * `r:<tool id>:<hash of backend identity, canonical arguments and principal>`:
 * short, and the same for the same arguments in any key order. Without a
 * principal, the key shared by all of them.
 */
export function resultKey(toolId: string, identity: string, args: Record<string, unknown>, principal?: string): string {
  const hash = createHash("sha256").update(identity).update("\0").update(canonicalJson(args));
  // Canonical JSON holds no raw NUL, so what follows one can only be the principal.
  if (principal !== undefined) hash.update("\0").update(principal);
  return `r:${toolId}:${hash.digest("base64url").slice(0, 32)}`;
}

function genKey(namespace: string): string {
  return `g:${namespace}`;
}
