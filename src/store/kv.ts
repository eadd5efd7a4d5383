/**
 * The key-value store the executor keeps shared state in: cached results
 * and output handles. One narrow interface over keyv, so memory, Redis and
 * SQLite are the same to callers, and a store that fails or hangs surfaces
 * as a `StoreError` naming the store, within a bounded time.
 */
import type Keyv from "keyv";
import { MetatoolsError } from "../util/errors.js";

export type StoreKind = "memory" | "redis" | "sqlite";

export interface KeyValue {
  readonly kind: StoreKind;
  /** Where it lives, for messages (passwords masked). */
  readonly where: string;
  get<T>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

export class StoreError extends MetatoolsError {
  constructor(where: string, detail: string, options?: { cause?: unknown }) {
    super("store_unavailable", `store ${where}: ${detail}`, options);
    this.name = "StoreError";
  }
}

/** After a failure, a remote store is not tried again for this long: calls fail fast instead of each waiting out the timeout. */
const RETRY_AFTER_MS = 5000;

/** A keyv instance behind the interface; every operation is bounded by `opTimeoutMs`. */
export class KeyvStore implements KeyValue {
  private downUntil = 0;
  private lastError = "";

  constructor(
    readonly kind: StoreKind,
    readonly where: string,
    private readonly keyv: Keyv,
    private readonly opTimeoutMs: number,
  ) {}

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
      const failure =
        error instanceof StoreError
          ? error
          : new StoreError(this.where, `${op} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      this.lastError = failure.message.slice(`store ${this.where}: `.length);
      this.downUntil = Date.now() + RETRY_AFTER_MS;
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }
}
