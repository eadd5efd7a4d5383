/**
 * The result cache's generations, against a real memory store that can be
 * made to fail on demand: a write recorded while the store was failing, a
 * generation that vanished, and concurrent writes; and results kept apart
 * per principal unless the config shares them.
 */
import { describe, expect, it } from "vitest";
import { ResultCache } from "../../../src/exec/cache.js";
import { buildRecord } from "../../../src/registry/record.js";
import type { KeyValue } from "../../../src/store/kv.js";
import { StoreError } from "../../../src/store/kv.js";
import { openStore } from "../../../src/store/open.js";
import { silentLogger } from "../../../src/util/log.js";

class FlakyStore implements KeyValue {
  readonly kind = "memory" as const;
  readonly where = "flaky";
  failing = false;
  constructor(readonly inner: KeyValue) {}
  private check(): void {
    if (this.failing) throw new StoreError(this.where, "down");
  }
  async get<T>(key: string) {
    this.check();
    return this.inner.get<T>(key);
  }
  async set(key: string, value: unknown, ttlMs: number) {
    this.check();
    return this.inner.set(key, value, ttlMs);
  }
  async delete(key: string) {
    this.check();
    return this.inner.delete(key);
  }
  async increment(key: string, ttlMs: number) {
    this.check();
    return this.inner.increment(key, ttlMs);
  }
  close() {
    return this.inner.close();
  }
}

const record = buildRecord("fs", { name: "read", annotations: { readOnlyHint: true } }, [], true);
const result = (text: string) => ({ content: [{ type: "text" as const, text }] });

function setup(shareAcrossPrincipals = false) {
  const store = new FlakyStore(openStore({ url: "memory", namespace: "t", memoryMaxBytes: 1 << 20 }));
  return { store, cache: new ResultCache(store, { enabled: true, ttlMs: 60_000, maxEntryBytes: 1 << 20, shareAcrossPrincipals }, silentLogger) };
}

async function cacheOne(cache: ResultCache, text: string, principal = "alice") {
  const lookup = await cache.lookup(record, { p: "a" }, true, principal);
  expect(await cache.save(lookup, result(text), 60_000)).toBe(true);
}

describe("result cache generations", () => {
  it("a write recorded while the store failed retires the cache once the store is back", async () => {
    const { store, cache } = setup();
    await cacheOne(cache, "old");
    expect((await cache.lookup(record, { p: "a" }, true, "alice")).hit?.result).toEqual(result("old"));
    store.failing = true;
    expect(await cache.invalidate("fs")).toBe("unknown");
    store.failing = false;
    expect((await cache.lookup(record, { p: "a" }, true, "alice")).hit).toBeUndefined();
  });

  it("a generation that vanished (evicted, expired) never brings old entries back", async () => {
    const { store, cache } = setup();
    await cacheOne(cache, "old");
    await store.inner.delete("g:fs");
    expect((await cache.lookup(record, { p: "a" }, true, "alice")).hit).toBeUndefined();
  });

  it("a write's result is not saved once a later write has moved the generation on", async () => {
    const { cache } = setup();
    const lookup = await cache.lookup(record, { p: "a" }, true, "alice");
    const mine = await cache.invalidate("fs");
    await cache.invalidate("fs");
    expect(await cache.save({ ...lookup, gen: mine }, result("stale"), 60_000, mine)).toBe(false);
  });

  it("caches nothing while the store fails, and says the entry was not kept", async () => {
    const { store, cache } = setup();
    store.failing = true;
    const lookup = await cache.lookup(record, { p: "a" }, true, "alice");
    expect(lookup.gen).toBe("unknown");
    expect(await cache.save(lookup, result("x"), 60_000)).toBe(false);
  });

  it.each([
    { share: false, toBob: undefined },
    { share: true, toBob: result("alice's") },
  ])("shareAcrossPrincipals $share: alice's cached result is served to bob: $toBob", async ({ share, toBob }) => {
    const { cache } = setup(share);
    await cacheOne(cache, "alice's", "alice");
    expect((await cache.lookup(record, { p: "a" }, true, "alice")).hit?.result).toEqual(result("alice's"));
    expect((await cache.lookup(record, { p: "a" }, true, "bob")).hit?.result).toEqual(toBob);
  });

  it("a write by one principal retires every principal's results", async () => {
    const { cache } = setup();
    await cacheOne(cache, "alice's", "alice");
    await cacheOne(cache, "bob's", "bob");
    await cache.invalidate("fs");
    for (const principal of ["alice", "bob"]) expect((await cache.lookup(record, { p: "a" }, true, principal)).hit).toBeUndefined();
  });

  it("caches idempotent tools only when they say they destroy nothing", () => {
    const { cache } = setup();
    const idem = (annotations: Record<string, boolean>) => cache.policy(buildRecord("kv", { name: "put", annotations }, [], true)).cacheable;
    expect(idem({ idempotentHint: true })).toBe(false);
    expect(idem({ idempotentHint: true, destructiveHint: false })).toBe(true);
    expect(idem({ idempotentHint: true, destructiveHint: true })).toBe(false);
    expect(idem({ readOnlyHint: true })).toBe(true);
    expect(idem({})).toBe(false);
  });
});
