/**
 * The stores under the cache and the output handles: the memory store's
 * byte bound and recency, URL handling, and a Redis that cannot be reached.
 */
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/util/canonical-json.js";
import { resultKey } from "../../../src/exec/cache.js";
import { LruMap } from "../../../src/store/lru.js";
import { maskUrl, openStore, storeKind } from "../../../src/store/open.js";

describe("memory store", () => {
  it("evicts the least recently used entries once over its byte bound", () => {
    const map = new LruMap(30);
    map.set("a", "1234567890");
    map.set("b", "1234567890");
    map.get("a");
    map.set("c", "1234567890");
    expect([...map.keys()]).toEqual(["a", "c"]);
    expect(map.bytes).toBe(22);
    expect(map.set("huge", "x".repeat(100))).toBe(false);
    expect(map.has("huge")).toBe(false);
    expect(map.size).toBe(2);
  });

  it("refuses, loudly, a value larger than the whole store", async () => {
    const store = openStore({ url: "memory", namespace: "t", memoryMaxBytes: 100 });
    await expect(store.set("big", "x".repeat(500), 1000)).rejects.toThrow(/refused a write/);
  });

  it("serves values through keyv with their TTL", async () => {
    const store = openStore({ url: "memory", namespace: "t", memoryMaxBytes: 1 << 20 });
    await store.set("k", { n: 1 }, 50);
    expect(await store.get("k")).toEqual({ n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.get("k")).toBeUndefined();
  });
});

describe("store URLs", () => {
  it("recognises the schemes and masks passwords", () => {
    expect(["memory", "redis://h:1", "rediss://h:1", "sqlite:///x.db", "mongodb://h"].map(storeKind)).toEqual([
      "memory",
      "redis",
      "redis",
      "sqlite",
      undefined,
    ]);
    expect(maskUrl("redis://user:secret@host:6379/0")).toBe("redis://user:***@host:6379/0");
    expect(maskUrl("redis://host:6379")).toBe("redis://host:6379");
    // An unencoded `@` in the password: masked up to the last one, leaving no piece of it.
    expect(maskUrl("redis://:p@ss$word1@host:6379/0")).toBe("redis://:***@host:6379/0");
  });

  it("fails fast after a first failure to reach Redis, naming the store", async () => {
    const store = openStore({ url: "redis://:pw@127.0.0.1:1", namespace: "t", memoryMaxBytes: 1, opTimeoutMs: 300 });
    await expect(store.get("k")).rejects.toThrow(/^store redis:\/\/:\*\*\*@127\.0\.0\.1:1: /);
    const started = Date.now();
    await expect(store.set("k", 1, 1000)).rejects.toThrow(/unavailable .*next attempt in \d s/);
    expect(Date.now() - started).toBeLessThan(250);
    await store.close();
  });
});

describe("cache keys", () => {
  it("are the same for the same arguments in any key order, at any depth", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":2,"f":1}]},"b":1}');
    expect(resultKey("ns:t", "id", { x: 1, y: { b: 2, a: 1 } })).toBe(resultKey("ns:t", "id", { y: { a: 1, b: 2 }, x: 1 }));
    expect(resultKey("ns:t", "id", { x: 1 })).not.toBe(resultKey("ns:t", "id", { x: 2 }));
    expect(resultKey("ns:t", "id", { x: 1 })).not.toBe(resultKey("ns:u", "id", { x: 1 }));
    // The same tool behind a differently configured backend (or another server version) has its own entries.
    expect(resultKey("ns:t", "root=/a", { x: 1 })).not.toBe(resultKey("ns:t", "root=/b", { x: 1 }));
  });
});
