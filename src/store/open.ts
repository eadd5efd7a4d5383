/**
 * Opens a store from a URL: `memory` (default; bounded LRU in this
 * process), `redis://` / `rediss://` (shared by every replica that points
 * at it), or `sqlite://path` (one machine, survives restarts). Adapters are
 * imported on first use, so the memory store costs no Redis client.
 */
import type { StoreConfig } from "../config/resolved.js";
import Keyv, { type KeyvStoreAdapter } from "keyv";
import { KeyvStore, StoreError, type AtomicIncrement, type KeyValue, type ScriptRunner, type StoreKind } from "./kv.js";
import { LruMap } from "./lru.js";
import type { QuotaLimits, QuotaStore } from "./quota.js";
import { LocalQuotaStore } from "./quota-local.js";
import { RedisQuotaStore } from "./quota-redis.js";
import { importExternal } from "../util/import-external.js";

export interface StoreOptions {
  /** `memory`, `redis://…`, `rediss://…` or `sqlite://…` (an absolute path after the scheme). */
  url: string;
  /** Key prefix, so several deployments can share one Redis: `<prefix>:<key>`. */
  namespace: string;
  /** Bound of the memory store. */
  memoryMaxBytes: number;
  /** Longest a remote store operation may take before it counts as failed. Default 2000 ms. */
  opTimeoutMs?: number;
}

export function storeKind(url: string): StoreKind | undefined {
  if (url === "memory" || url.startsWith("memory:")) return "memory";
  if (/^rediss?:\/\//.test(url)) return "redis";
  if (url.startsWith("sqlite://")) return "sqlite";
  return undefined;
}

/** The URL with any password replaced, for logs and messages; up to the authority's last `@`, as a password may hold one unencoded. */
export function maskUrl(url: string): string {
  return url.replace(/^(\w+:\/\/[^:/@]*:)[^/?#]*@/, "$1***@");
}

/**
 * The configured store's `part` (cache, out, auth, learn): its keys under `<prefix>:<part>`, so parts never meet.
 * `memoryMaxBytes` replaces the configured bound of a memory store (the outputs have bounds of their own).
 */
export function openConfiguredStore(config: StoreConfig, part: string, memoryMaxBytes = config.memoryMaxBytes): KeyValue {
  return openStore({ url: config.url, namespace: `${config.prefix}:${part}`, memoryMaxBytes });
}

/**
 * The configured store's `part` as a quota store (output handles): each owner's share and the total bound of
 * `limits`, kept by one script per operation on Redis, by this process elsewhere. In memory its LRU bound is
 * set past what the accounting admits (the total, and one value in flight), so the LRU never chooses what goes.
 */
export function openQuotaStore(config: StoreConfig, part: string, limits: QuotaLimits): { store: KeyValue; quota: QuotaStore } {
  const store = openConfiguredStore(config, part, limits.totalBytes + limits.ownerBytes + (1 << 20));
  return { store, quota: store.kind === "redis" ? new RedisQuotaStore(store, limits) : new LocalQuotaStore(store, limits) };
}

/**
 * Every part of the configured store metatools keeps: results cached, output
 * handles (each caller's share within the total: one caller's outputs never
 * push out another's), resource links (apart from the outputs, so that in
 * memory no number of links can push out a handle), what questions and
 * tasks relay between replicas, and task records (each caller's share again). What search learns is
 * opened by src/learn/open.ts (with the memory store, it is kept in a file).
 */
export function openStoreParts(
  config: StoreConfig,
  outputs: { principalBytes: number; totalBytes: number },
  tasks: { taskBytesPerCaller: number; taskBytes: number },
) {
  const out = openQuotaStore(config, "out", { ownerBytes: Math.min(outputs.principalBytes, outputs.totalBytes), totalBytes: outputs.totalBytes });
  // Task records (results included) in each caller's share, apart from the relay's small keys, so no number of tasks pushes out a question's claim.
  const taskRecords = openQuotaStore(config, "tasks", {
    ownerBytes: Math.min(tasks.taskBytesPerCaller, tasks.taskBytes),
    totalBytes: tasks.taskBytes,
    settings: { owner: "metatools.serve.taskBytesPerCaller", total: "metatools.serve.taskBytes" },
  });
  return {
    cache: openConfiguredStore(config, "cache"),
    outputs: out.store,
    quota: out.quota,
    links: openConfiguredStore(config, "links"),
    relay: openConfiguredStore(config, "relay"),
    tasks: taskRecords.store,
    taskQuota: taskRecords.quota,
  };
}

export function openStore(options: StoreOptions): KeyValue {
  const kind = storeKind(options.url);
  const where = maskUrl(options.url);
  if (!kind) throw new StoreError(where, "unsupported URL; use memory, redis://host:port, rediss://… or sqlite:///path/to/file.db");
  const timeout = options.opTimeoutMs ?? 2000;
  if (kind === "memory") {
    return new KeyvStore(kind, where, new Keyv({ store: new LruMap(options.memoryMaxBytes), namespace: options.namespace, throwOnErrors: true }), timeout);
  }
  return new LazyStore(kind, where, async () => {
    const { keyv, increment, script } = await adapterKeyv(kind, options);
    return new KeyvStore(kind, where, keyv, timeout, increment, script);
  });
}

/** The part of a Redis client an atomic increment needs (node-redis's client, cluster and sentinel all have it). */
interface RedisMulti {
  incr(key: string): RedisMulti;
  pExpire(key: string, ms: number): RedisMulti;
  exec(): Promise<unknown[]>;
}

/** Optional packages (not installed by `npm ci`), named by variables so that building metatools does not need them. */
const SQLITE_PACKAGE = "@keyv/sqlite";
const REDIS_PACKAGE = "@keyv/redis";
interface SqliteModule {
  default: new (options: { uri: string; busyTimeout: number }) => KeyvStoreAdapter;
}

/** The part of @keyv/redis metatools uses. */
interface RedisAdapter extends KeyvStoreAdapter {
  getClient(): Promise<unknown>;
  createKeyPrefix(key: string, namespace?: string): string;
  namespace?: string;
}
interface RedisModule {
  default: new (
    connect: { url: string; socket: { connectTimeout: number } },
    options: { throwOnConnectError: boolean; throwOnErrors: boolean },
  ) => RedisAdapter;
}

/** An optional store package, or a StoreError naming the command that installs it. */
async function optionalPackage<T>(name: string, what: string, url: string): Promise<T> {
  return (await importExternal(name).catch((error: unknown) => {
    throw new StoreError(maskUrl(url), `${what} needs the ${name} package, which is not installed: run \`npm install ${name}\``, { cause: error });
  })) as T;
}

/** The part of a Redis client a script needs. */
interface RedisEval {
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

async function adapterKeyv(kind: "redis" | "sqlite", options: StoreOptions): Promise<{ keyv: Keyv; increment?: AtomicIncrement; script?: ScriptRunner }> {
  if (kind === "redis") {
    const { default: KeyvRedis } = await optionalPackage<RedisModule>(REDIS_PACKAGE, "the Redis store", options.url);
    // The connect timeout goes to the Redis client's socket, which clears it: @keyv/redis's own `connectionTimeout` leaves a timer
    // running after a successful connect, and every CLI command on Redis waited it out before exiting. Each operation is bounded anyway (KeyvStore).
    const adapter = new KeyvRedis(
      { url: options.url, socket: { connectTimeout: options.opTimeoutMs ?? 2000 } },
      { throwOnConnectError: true, throwOnErrors: true },
    );
    const keyv = new Keyv({ store: adapter, namespace: options.namespace, throwOnErrors: true, useKeyPrefix: false });
    // INCR and PEXPIRE in one MULTI: replicas counting at once each get their own count, and a counter never outlives its TTL.
    const increment: AtomicIncrement = async (key, ttlMs) => {
      const client = (await adapter.getClient()) as unknown as { multi(): RedisMulti };
      const full = adapter.createKeyPrefix(key, adapter.namespace);
      const [count] = await client.multi().incr(full).pExpire(full, ttlMs).exec();
      return Number(count);
    };
    const script: ScriptRunner = async (source, keys, args) => {
      const client = (await adapter.getClient()) as unknown as RedisEval;
      const prefix = adapter.createKeyPrefix("", adapter.namespace);
      return client.eval(source, { keys: keys.map((key) => prefix + key), arguments: [prefix, ...args] });
    };
    return { keyv, increment, script };
  }
  const sqlite = await optionalPackage<SqliteModule>(SQLITE_PACKAGE, "the SQLite store", options.url);
  const adapter = new sqlite.default({ uri: options.url, busyTimeout: 5000 });
  return { keyv: new Keyv({ store: adapter, namespace: options.namespace, throwOnErrors: true }) };
}

/** Resolves its store on first use; a failure to open is reported by every call, not at construction. */
class LazyStore implements KeyValue {
  private inner: Promise<KeyValue> | undefined;

  constructor(
    readonly kind: StoreKind,
    readonly where: string,
    private readonly open: () => Promise<KeyValue>,
  ) {}

  async get<T>(key: string): Promise<T | undefined> {
    return (await this.store()).get<T>(key);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    return (await this.store()).set(key, value, ttlMs);
  }

  async delete(key: string): Promise<void> {
    return (await this.store()).delete(key);
  }

  async increment(key: string, ttlMs: number): Promise<number> {
    return (await this.store()).increment(key, ttlMs);
  }

  readonly script = async (source: string, keys: readonly string[], args: readonly string[]): Promise<unknown> => {
    const inner = await this.store();
    if (!inner.script) throw new StoreError(this.where, "runs no scripts (only Redis does)");
    return inner.script(source, keys, args);
  };

  async close(): Promise<void> {
    const inner = this.inner;
    this.inner = undefined;
    await inner?.then((s) => s.close()).catch(() => {});
  }

  private store(): Promise<KeyValue> {
    this.inner ??= this.open().catch((error) => {
      this.inner = undefined;
      throw error instanceof StoreError ? error : new StoreError(this.where, String(error), { cause: error });
    });
    return this.inner;
  }
}
