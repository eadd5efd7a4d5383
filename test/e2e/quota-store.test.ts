/**
 * The quota store under the output handles, the same rules on both
 * implementations: in this process (memory, SQLite) and one Lua script per
 * operation on a real Redis, where two store instances stand for two
 * replicas putting at once. Also what a Redis tells its operator, and a
 * Redis at its maxmemory refusing a write without taking reads down.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { LocalQuotaStore } from "../../src/store/quota-local.js";
import { RedisQuotaStore } from "../../src/store/quota-redis.js";
import { ENTRY_OVERHEAD, allocated, ownedKey, type QuotaLimits, type QuotaStore } from "../../src/store/quota.js";
import type { KeyValue } from "../../src/store/kv.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually } from "../helpers/eventually.js";

let redis: RedisServer;
const opened: KeyValue[] = [];
beforeAll(async () => {
  redis = await startRedis();
}, 20_000);
afterAll(async () => {
  await Promise.all(opened.map((kv) => kv.close()));
  await redis?.stop();
});

/** A value whose accounted size is exactly `kib` KiB plus the overhead (its JSON and key within one allocation class). */
const value = (kib: number) => "x".repeat(kib * 1024 - 200);
const cost = (kib: number) => allocated(kib * 1024 - 200 + 2 + 30) + ENTRY_OVERHEAD;

/** CONFIG SET on the test's Redis, as an operator would. */
function configure(...pairs: string[]): void {
  const done = spawnSync("redis-cli", ["-p", String(redis.port), "CONFIG", "SET", ...pairs], { encoding: "utf8" });
  expect(done.stdout.trim()).toBe("OK");
}

let stores = 0;
function open(kind: "memory" | "sqlite" | "redis", limits: QuotaLimits, namespace = `q${++stores}`): QuotaStore & { kv: KeyValue } {
  const url = { memory: "memory", sqlite: `sqlite://${join(tempDir(), "store.db")}`, redis: redis.url }[kind];
  const kv = openStore({ url, namespace, memoryMaxBytes: 64 << 20 });
  opened.push(kv);
  return Object.assign(kind === "redis" ? new RedisQuotaStore(kv, limits) : new LocalQuotaStore(kv, limits), { kv });
}

describe.each(["memory", "sqlite", "redis"] as const)("the quota store on %s", (kind) => {
  it("evicts an owner's own oldest values past its quota, and remembers them as evicted for that owner only", async () => {
    const store = open(kind, { ownerBytes: 3 * cost(64), totalBytes: 100 * cost(64) });
    expect(cost(64)).toBe(64 * 1024 + ENTRY_OVERHEAD);
    for (const id of ["a1", "a2", "a3"]) await store.put("alice", id, value(64), 60_000);
    await store.put("bob", "b1", value(64), 60_000);
    const fourth = await store.put("alice", "a4", value(64), 60_000);
    expect(fourth).toEqual({ bytes: cost(64), room: 2 * cost(64), used: 3 * cost(64) });
    expect((await store.get("alice", "a1")).kind).toBe("evicted");
    expect((await store.get("alice", "a2")).kind).toBe("found");
    expect((await store.get("bob", "b1")).kind).toBe("found");
    // Another owner asking for an evicted id, or a live one, finds what it finds for an id never used.
    expect((await store.get("bob", "a1")).kind).toBe("missing");
    expect((await store.get("bob", "a2")).kind).toBe("missing");
    expect((await store.get("alice", "never")).kind).toBe("missing");
    expect(await store.get("alice", "a4")).toEqual({ kind: "found", value: value(64) });
  });

  it("a value put again under its id replaces the one before: counted once, and the owner's newest", async () => {
    const store = open(kind, { ownerBytes: 3 * cost(64), totalBytes: 100 * cost(64) });
    for (const id of ["t1", "t2", "t3"]) await store.put("alice", id, value(64), 60_000);
    // Written again as it changes (a task's record): still three values' worth, and t1 is now the newest.
    for (let i = 0; i < 5; i++) expect((await store.put("alice", "t1", value(64), 60_000)).used).toBe(3 * cost(64));
    await store.put("alice", "t4", value(64), 60_000);
    expect((await store.get("alice", "t2")).kind).toBe("evicted");
    for (const id of ["t1", "t3", "t4"]) expect((await store.get("alice", id)).kind).toBe("found");
  });

  it("a replacement refused leaves the value before it stored and counted; ids may hold a slash, and expire as any other", async () => {
    const store = open(kind, { ownerBytes: 3 * cost(64), totalBytes: 100 * cost(64) });
    await store.put("alice", "task/1", value(64), 60_000);
    await expect(store.put("alice", "task/1", value(256), 60_000)).rejects.toMatchObject({ code: "store_full" });
    expect(await store.get("alice", "task/1")).toEqual({ kind: "found", value: value(64) });
    expect((await store.put("alice", "task/2", value(64), 60_000)).used).toBe(2 * cost(64));
    // An id with a slash that expires is swept like any other, its bytes given back to the total.
    const full = open(kind, { ownerBytes: 3 * cost(64), totalBytes: 4 * cost(64) });
    await full.put("bob", "task/short", value(64), 50);
    for (const id of ["task/1", "task/2", "task/3"]) await full.put("alice", id, value(64), 60_000);
    await expect(full.put("carol", "task/1", value(64), 60_000)).rejects.toMatchObject({ code: "store_full" });
    await eventually(
      () => full.get("bob", "task/short"),
      (found) => found.kind === "missing",
    );
    expect((await full.put("carol", "task/1", value(64), 60_000)).used).toBe(cost(64));
  });

  it("refuses past the total bound without evicting anything, and a value over the quota alone", async () => {
    const store = open(kind, { ownerBytes: 3 * cost(64), totalBytes: 4 * cost(64) });
    for (const id of ["a1", "a2", "a3"]) await store.put("alice", id, value(64), 60_000);
    await store.put("bob", "b1", value(64), 60_000);
    await expect(store.put("bob", "b2", value(64), 60_000)).rejects.toMatchObject({ code: "store_full", message: /total bound/ });
    await expect(store.put("carol", "c1", value(256), 60_000)).rejects.toMatchObject({ code: "store_full", message: /over the .* one caller may keep/ });
    for (const [owner, id] of [
      ["alice", "a1"],
      ["alice", "a3"],
      ["bob", "b1"],
    ] as const)
      expect((await store.get(owner, id)).kind).toBe("found");
    expect((await store.get("bob", "b2")).kind).toBe("missing");
  });

  it("a value the store lost behind the accounting's back (an evicting Redis) reads as dropped", async () => {
    const store = open(kind, { ownerBytes: 2 * cost(64), totalBytes: 2 * cost(64) });
    await store.put("alice", "a1", value(64), 60_000);
    await store.kv.delete(ownedKey("alice", "a1"));
    expect((await store.get("alice", "a1")).kind).toBe("dropped");
    expect((await store.get("bob", "a1")).kind).toBe("missing");
  });

  it("forgets expired values, so they count no more", async () => {
    const store = open(kind, { ownerBytes: 2 * cost(64), totalBytes: 2 * cost(64) });
    await store.put("alice", "short", value(64), 50);
    await store.put("alice", "long", value(64), 60_000);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect((await store.get("alice", "short")).kind).toBe("missing");
    // Room again for two, without evicting the live one.
    expect((await store.put("bob", "b1", value(64), 60_000)).used).toBe(cost(64));
    expect((await store.get("alice", "long")).kind).toBe("found");
  });
});

describe("on Redis shared by replicas", () => {
  it("two replicas putting at once for one owner keep it within its quota, and the totals agree", async () => {
    const limits = { ownerBytes: 5 * cost(64), totalBytes: 50 * cost(64) };
    const [one, two] = [open("redis", limits, "shared"), open("redis", limits, "shared")];
    const puts = Array.from({ length: 30 }, (_, i) => (i % 2 ? one : two).put("alice", `v${i}`, value(64), 60_000));
    const stored = await Promise.all(puts);
    expect(Math.max(...stored.map((s) => s.used))).toBeLessThanOrEqual(limits.ownerBytes);
    const found = await Promise.all(Array.from({ length: 30 }, (_, i) => one.get("alice", `v${i}`)));
    expect(found.filter((f) => f.kind === "found")).toHaveLength(5);
    expect(found.filter((f) => f.kind === "evicted")).toHaveLength(25);
  });

  it("reads and writes values as keyv does, so replicas before and after an upgrade read each other's handles", async () => {
    const store = open("redis", { ownerBytes: 1 << 20, totalBytes: 1 << 20 }, "upgrade");
    await store.put("alice", "new", { kind: "text", text: "written by the quota store" }, 60_000);
    expect(await store.kv.get(ownedKey("alice", "new"))).toEqual({ kind: "text", text: "written by the quota store" });
    await store.kv.set(ownedKey("alice", "old"), { kind: "text", text: "written by keyv" }, 60_000);
    expect(await store.get("alice", "old")).toEqual({ kind: "found", value: { kind: "text", text: "written by keyv" } });
  });

  it("tells the operator when Redis has no maxmemory or may evict keys, and nothing once it is set safely", async () => {
    const kv = openStore({ url: redis.url, namespace: "advice", memoryMaxBytes: 1 });
    opened.push(kv);
    const store = new RedisQuotaStore(kv, { ownerBytes: 1 << 20, totalBytes: 1 << 20 });
    expect(await store.advice()).toMatch(/has no maxmemory .*maxmemory-policy noeviction \(docs\/deploy\.md\)/);
    configure("maxmemory", "2gb", "maxmemory-policy", "allkeys-lru");
    expect(await store.advice()).toMatch(/evicts keys at maxmemory \(maxmemory-policy allkeys-lru\)/);
    configure("maxmemory-policy", "noeviction");
    expect(await store.advice()).toBeUndefined();
    configure("maxmemory", "0");
  });

  it("at maxmemory with noeviction, a put is refused as store_full and reads go on at once", async () => {
    const kv = openStore({ url: redis.url, namespace: "oom", memoryMaxBytes: 1 });
    opened.push(kv);
    const store = new RedisQuotaStore(kv, { ownerBytes: 8 << 20, totalBytes: 8 << 20 });
    await store.put("alice", "kept", value(64), 60_000);
    configure("maxmemory", "100kb", "maxmemory-policy", "noeviction");
    try {
      await expect(store.put("alice", "more", value(512), 60_000)).rejects.toMatchObject({ code: "store_full", message: /maxmemory/ });
      expect((await store.get("alice", "kept")).kind).toBe("found");
    } finally {
      configure("maxmemory", "0");
    }
  });
});
