/**
 * The result cache, through a real MCP client and a real stdio backend that
 * logs every call it receives: what is cached, what never is, and the
 * per-call cache modes.
 */
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedCalls, openSession, servers, tempDir, type Session } from "../../helpers/harness.js";
import { eventually } from "../../helpers/eventually.js";

let session: Session;
let callLog: string;
const count = (tool: string) => loggedCalls(callLog).filter((c) => c === tool).length;
const run = (tool_id: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => session.call("run_tool", { tool_id, args, ...extra });

beforeAll(async () => {
  callLog = join(tempDir(), "calls.log");
  session = await openSession({ mcpServers: { kv: servers.exec(callLog) } });
});
afterAll(() => session?.close());

describe("run_tool cache", () => {
  it("answers a second identical call to a read-only tool from cache, without calling the backend", async () => {
    const first = await run("kv:lookup", { key: "alpha" });
    expect(first).toMatchObject({ ok: true, result: "alpha = value-alpha (lookup #1)" });
    expect(first.cache).toBeUndefined();
    const second = await run("kv:lookup", { key: "alpha" });
    expect(second).toMatchObject({ ok: true, result: "alpha = value-alpha (lookup #1)", cache: "hit" });
    expect(second.cache_age_s).toEqual(expect.any(Number));
    expect(second.cache_age_s).toBeLessThan(30);
    expect(count("lookup")).toBe(1);
  });

  it("keys on the canonical arguments: key order does not matter, values do", async () => {
    await run("kv:lookup", { key: "beta", verbose: true });
    const reordered = await run("kv:lookup", { verbose: true, key: "beta" });
    expect(reordered.cache).toBe("hit");
    const other = await run("kv:lookup", { key: "beta", verbose: false });
    expect(other.cache).toBeUndefined();
    expect(count("lookup")).toBe(3);
  });

  it("refresh calls the backend and re-caches; bypass calls it and leaves the cache alone", async () => {
    const before = count("lookup");
    const refreshed = await run("kv:lookup", { key: "alpha" }, { cache: "refresh" });
    expect(refreshed.cache).toBeUndefined();
    expect(refreshed.result).toMatch(/lookup #\d+/);
    expect(count("lookup")).toBe(before + 1);
    const served = await run("kv:lookup", { key: "alpha" });
    expect(served).toMatchObject({ cache: "hit", result: refreshed.result });

    const bypassed = await run("kv:lookup", { key: "alpha" }, { cache: "bypass" });
    expect(bypassed.cache).toBeUndefined();
    expect(bypassed.result).not.toBe(refreshed.result);
    expect(count("lookup")).toBe(before + 2);
    // bypass did not overwrite the entry: the refreshed result is still the cached one.
    expect((await run("kv:lookup", { key: "alpha" })).result).toBe(refreshed.result);
  });

  it("never caches a destructive tool, even one marked idempotent", async () => {
    await run("kv:wipe", { prefix: "tmp" });
    const again = await run("kv:wipe", { prefix: "tmp" });
    expect(again.cache).toBeUndefined();
    expect(count("wipe")).toBe(2);
    expect(session.app.cache.policy(session.app.registry.get("kv:wipe")!)).toMatchObject({ cacheable: false, reason: "the tool is destructive" });
  });

  it("does not cache a failed call", async () => {
    const failed = await run("kv:flaky", { key: "gamma" });
    expect(failed).toMatchObject({ ok: false, error: { code: "tool_error" } });
    const retried = await run("kv:flaky", { key: "gamma" });
    expect(retried).toMatchObject({ ok: true, result: "gamma is fine now" });
    expect(retried.cache).toBeUndefined();
    expect(count("flaky")).toBe(2);
    expect((await run("kv:flaky", { key: "gamma" })).cache).toBe("hit");
  });

  it("a write in a namespace retires its cached reads; an idempotent write is then served from cache", async () => {
    await run("kv:lookup", { key: "delta" });
    expect((await run("kv:lookup", { key: "delta" })).cache).toBe("hit");
    await run("kv:put", { key: "delta", value: "1" });
    const after = await run("kv:lookup", { key: "delta" });
    expect(after.cache).toBeUndefined();
    // put is idempotent and not destructive: the same put again is answered from cache.
    const samePut = await run("kv:put", { key: "delta", value: "1" });
    expect(samePut.cache).toBe("hit");
    expect(count("put")).toBe(1);
    // ...and its own result did not retire the lookup cached after it.
    expect((await run("kv:lookup", { key: "delta" })).cache).toBe("hit");
  });

  it("a write that reports an error still retires the namespace's cached reads", async () => {
    await run("kv:lookup", { key: "epsilon" });
    expect((await run("kv:lookup", { key: "epsilon" })).cache).toBe("hit");
    expect(await run("kv:put", { key: "epsilon", value: "fail" })).toMatchObject({ ok: false, error: { code: "tool_error" } });
    expect((await run("kv:lookup", { key: "epsilon" })).cache).toBeUndefined();
  });

  it("invalid arguments and unknown tools never reach the backend or the cache", async () => {
    const before = loggedCalls(callLog).length;
    expect(await run("kv:lookup", { key: "" })).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(await run("kv:nope", {})).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    expect(loggedCalls(callLog).length).toBe(before);
  });
});

describe("cache settings", () => {
  it("expires entries after the configured TTL, and can be turned off", async () => {
    const log = join(tempDir(), "calls.log");
    const ttlMs = 1000;
    const short = await openSession({ mcpServers: { kv: servers.exec(log) }, metatools: { cache: { ttlMs } } });
    try {
      const stored = Date.now();
      await short.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } });
      expect((await short.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } })).cache).toBe("hit");
      // Asked again until a miss: hits never reach the backend, so the log still counts exactly one more call.
      const miss = await eventually(
        () => short.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } }),
        (reply) => reply.cache !== "hit",
      );
      expect(miss.cache).toBeUndefined();
      expect(Date.now() - stored).toBeGreaterThanOrEqual(ttlMs);
      expect(loggedCalls(log).length).toBe(2);
    } finally {
      await short.close();
    }
    const off = await openSession({ mcpServers: { kv: servers.exec(log) }, metatools: { cache: { enabled: false } } });
    try {
      await off.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } });
      expect((await off.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } })).cache).toBeUndefined();
      expect(loggedCalls(log).length).toBe(4);
    } finally {
      await off.close();
    }
  });

  it("never caches the built-in tools, which read live files, even with no catalog loaded", async () => {
    const root = tempDir();
    writeFileSync(join(root, "notes.txt"), "alpha\n");
    const code = await openSession({ metatools: { code: { root } } }, { builtinCatalog: false });
    try {
      expect((await code.call("run_tool", { tool_id: "code:grep", args: { pattern: "alpha" } })).structured.total).toBe(1);
      appendFileSync(join(root, "notes.txt"), "alpha again\n");
      const again = await code.call("run_tool", { tool_id: "code:grep", args: { pattern: "alpha" } });
      expect(again.cache).toBeUndefined();
      expect(again.structured.total).toBe(2);
    } finally {
      await code.close();
    }
  });

  it("a SQLite store keeps cached results and handles across restarts", async () => {
    const dir = tempDir();
    const log = join(dir, "calls.log");
    const config = { mcpServers: { kv: servers.exec(log) }, metatools: { store: { url: "sqlite://cache.db" } } };
    const first = await openSession(config, { file: join(dir, "metatools.json") });
    let handle: string;
    try {
      await first.call("run_tool", { tool_id: "kv:lookup", args: { key: "persist" } });
      handle = (await first.call("run_tool", { tool_id: "kv:big_json", args: { count: 500 } })).handle;
    } finally {
      await first.close();
    }
    const second = await openSession(config, { file: join(dir, "metatools.json") });
    try {
      expect(await second.call("run_tool", { tool_id: "kv:lookup", args: { key: "persist" } })).toMatchObject({
        cache: "hit",
        result: "persist = value-persist (lookup #1)",
      });
      const read = await second.call("run_tool", { tool_id: "metatools:read_output", args: { handle, json_path: "$.records[499].id" } });
      expect(read.structured.value).toBe(499);
      expect(loggedCalls(log)).toEqual(["lookup", "big_json"]);
    } finally {
      await second.close();
    }
  });

  it("keeps serving, uncached, when a Redis store cannot be reached", async () => {
    const log = join(tempDir(), "calls.log");
    const down = await openSession({ mcpServers: { kv: servers.exec(log) }, metatools: { store: { url: "redis://127.0.0.1:1" } } });
    try {
      const first = await down.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } });
      const second = await down.call("run_tool", { tool_id: "kv:lookup", args: { key: "k" } });
      expect(first).toMatchObject({ ok: true, result: "k = value-k (lookup #1)" });
      expect(second).toMatchObject({ ok: true, result: "k = value-k (lookup #2)" });
      const big = await down.call("run_tool", { tool_id: "kv:big_json", args: { count: 500 } });
      expect(big).toMatchObject({ ok: false, error: { code: "store_unavailable" } });
      expect(big.warning).toMatch(/narrower call/);
    } finally {
      await down.close();
    }
  });
});
