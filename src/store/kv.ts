/**
 * The key-value store the executor keeps shared state in: cached results
 * and output handles. One narrow interface over keyv, so memory, Redis and
 * SQLite are the same to callers, and a store that fails or hangs surfaces
 * as a `StoreError` naming the store, within a bounded time.
 */
import type Keyv from "keyv";
import type { StoreErrorCode } from "../model/error-codes.js";
import { errorMessage, MetatoolsError } from "../util/errors.js";

export type StoreKind = "memory" | "redis" | "sqlite";

export interface KeyValue {
  readonly kind: StoreKind;
  /** Where it lives, for messages (passwords masked). */
  readonly where: string;
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Adds one to the counter at `key` (from 0) and returns the new count; the key expires `ttlMs` after its last increment.
   * Atomic: on Redis across replicas (INCR), elsewhere within this process. A counter is read only through this, never `get`.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /**
   * Redis only: runs a Lua script atomically (EVAL), bounded like every operation. `keys` are this store's keys (its
   * namespace is added); ARGV[1] is that namespace prefix, so a script can name keys it computes, and `args` follow.
   */
  script?(source: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  close(): Promise<void>;
}

/** A store's own script runner (Redis: EVAL with the namespace added to each key). */
export type ScriptRunner = (source: string, keys: readonly string[], args: readonly string[]) => Promise<unknown>;

/** A store's own atomic increment (Redis: INCR and PEXPIRE in one transaction). */
export type AtomicIncrement = (key: string, ttlMs: number) => Promise<number>;

/** `store_unavailable`: the store failed or cannot be reached; `store_full`: it answered, and refused to take more (a bound). */
export type { StoreErrorCode };

export class StoreError extends MetatoolsError {
  declare readonly code: StoreErrorCode;

  constructor(where: string, detail: string, options?: { cause?: unknown; code?: StoreErrorCode }) {
    super(options?.code ?? "store_unavailable", `store ${where}: ${detail}`, options);
    this.name = "StoreError";
  }
}

/** Redis refusing a write at its `maxmemory` (policy noeviction): an answer, not an outage. */
const OUT_OF_MEMORY = /\bOOM command not allowed\b/;

/** After a failure, a remote store is not tried again for this long: calls fail fast instead of each waiting out the timeout. */
const RETRY_AFTER_MS = 5000;

/** A keyv instance behind the interface; every operation is bounded by `opTimeoutMs`. */
export class KeyvStore implements KeyValue {
  private downUntil = 0;
  private lastError = "";
  /** Counters on a store with no atomic increment of its own: read, add and write one at a time per key. */
  private readonly counters = new KeyedSerial();
  readonly script?: ScriptRunner;

  constructor(
    readonly kind: StoreKind,
    readonly where: string,
    private readonly keyv: Keyv,
    private readonly opTimeoutMs: number,
    private readonly atomicIncrement?: AtomicIncrement,
    runScript?: ScriptRunner,
  ) {
    if (runScript) this.script = (source, keys, args) => this.bounded("script", () => runScript(source, keys, args));
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.bounded("get", () => this.keyv.get<T>(key));
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const ok = await this.bounded("set", () => this.keyv.set(key, value, ttlMs));
    if (ok === false) throw new StoreError(this.where, "refused a write");
  }

  async delete(key: string): Promise<void> {
    await this.bounded("delete", () => this.keyv.delete(key));
  }

  increment(key: string, ttlMs: number): Promise<number> {
    const atomic = this.atomicIncrement;
    if (atomic) return this.bounded("increment", () => atomic(key, ttlMs));
    // The memory store lives in this process, so serializing here makes it atomic; SQLite is atomic per process this way.
    return this.counters.run(key, async () => {
      const count = ((await this.get<number>(key)) ?? 0) + 1;
      await this.set(key, count, ttlMs);
      return count;
    });
  }

  async close(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    // A client stuck reconnecting may never finish disconnecting; closing must not hang shutdown.
    await Promise.race([this.keyv.disconnect().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, 1000)))]);
    clearTimeout(timer);
  }

  private async bounded<T>(op: string, run: () => Promise<T>): Promise<T> {
    if (this.kind === "memory") return run();
    const wait = this.downUntil - Date.now();
    if (wait > 0) throw new StoreError(this.where, `unavailable (${this.lastError}); next attempt in ${Math.ceil(wait / 1000)} s`);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreError(this.where, `${op} took longer than ${this.opTimeoutMs} ms`)), this.opTimeoutMs);
    });
    try {
      return await Promise.race([run(), timeout]);
    } catch (error) {
      const message = errorMessage(error);
      // A full Redis still answers: reads go on, and each write it refuses says why.
      if (OUT_OF_MEMORY.test(message))
        throw new StoreError(this.where, `refused a write: the Redis server is at its maxmemory (${message}); see docs/deploy.md`, {
          cause: error,
          code: "store_full",
        });
      const failure = error instanceof StoreError ? error : new StoreError(this.where, `${op} failed: ${message}`, { cause: error });
      this.lastError = failure.message.slice(`store ${this.where}: `.length);
      this.downUntil = Date.now() + RETRY_AFTER_MS;
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Tasks run one at a time per key, within this process: a read-modify-write
 * of one key (a counter on a store with no atomic increment, a learned
 * term's row) cannot lose an update to another running at the same time.
 * Keys with nothing running hold no entry, so the map stays as small as
 * the work in flight.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(task);
    const tail = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, tail);
    // The last task of a key removes its entry; a later one has replaced the tail by then, and removes it itself.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
