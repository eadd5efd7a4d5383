/**
 * What one caller leaves behind is theirs: over HTTP, an output handle made
 * with one bearer token cannot be read with another (the answer is the one
 * for a handle that never existed), and a cached result is served only to
 * the token it was made for, unless `metatools.cache.shareAcrossPrincipals`.
 * Real `metatools serve --http` processes, real SDK clients, the executor
 * fixture counting the calls that reach it; and stateless replicas sharing a
 * real Redis, where the scoping must live in the store keys.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedCalls, servers, tempDir } from "../helpers/harness.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const OTHER_TOKEN = "other-token-0123456789abcdef";

interface Caller {
  client: Client;
  run(args: Record<string, unknown>): Promise<Record<string, any>>;
}

const opened: Client[] = [];
const started: HttpChild[] = [];

async function connect(url: string, token: string): Promise<Caller> {
  const client = new Client({ name: "principal-test", version: "1" });
  await client.connect(httpClientTransport(url, token));
  opened.push(client);
  return {
    client,
    run: async (args) => JSON.parse(((await client.callTool({ name: "run_tool", arguments: args })).content as { text: string }[])[0]!.text),
  };
}

/** A server (or replica) of the executor fixture accepting both tokens; returns its URL and call log. */
async function serve(metatools: Record<string, unknown>, options: { callLog?: string; stateless?: boolean } = {}): Promise<{ url: string; callLog: string }> {
  const dir = tempDir();
  const callLog = options.callLog ?? join(dir, "calls.log");
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { kv: servers.exec(callLog) }, metatools: { code: { enabled: false }, http: { tokens: [OTHER_TOKEN] }, ...metatools } }),
  );
  const server = await startHttp(["--config", config, ...(options.stateless ? ["--stateless"] : [])]);
  started.push(server);
  return { url: server.url, callLog };
}

const readOutput = (handle: string, args: Record<string, unknown> = { start_line: 1, end_line: 5 }) => ({
  tool_id: "metatools:read_output",
  args: { handle, ...args },
});
const lookups = (callLog: string) => loggedCalls(callLog).filter((c) => c === "lookup").length;

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
  await Promise.all(started.map((s) => s.stop()));
});

describe("over HTTP with two tokens (default config)", () => {
  let a: Caller;
  let b: Caller;
  let callLog: string;

  beforeAll(async () => {
    const server = await serve({});
    callLog = server.callLog;
    [a, b] = await Promise.all([connect(server.url, TEST_TOKEN), connect(server.url, OTHER_TOKEN)]);
  }, 30_000);

  it("an output handle is read by the token that made it; another token gets exactly the answer for a handle that never existed", async () => {
    const big = await a.run({ tool_id: "kv:big_json", args: { count: 2000 } });
    expect(big.handle).toMatch(/^@out_/);
    const mine = await a.run(big.next.arguments);
    expect(mine).toMatchObject({ ok: true, handle: big.handle, structured: { start_line: 1 } });

    const stolen = await b.run(readOutput(big.handle));
    expect(stolen).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
    const neverMade = "@out_AAAAAAAAAAAAAAAAAAAAAAAA";
    const missing = await b.run(readOutput(neverMade));
    // No oracle: with the handle's own id taken out, the two answers are the same, byte for byte.
    const scrub = (body: Record<string, any>, handle: string) => JSON.parse(JSON.stringify({ ...body, duration_ms: 0 }).replaceAll(handle, "@out_X"));
    expect(scrub(stolen, big.handle)).toEqual(scrub(missing, neverMade));
    // Every way of reading is closed to the other token, and the handle still works for its owner afterwards.
    expect(await b.run(readOutput(big.handle, { json_path: "$.records[0]" }))).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
    expect(await b.run(readOutput(big.handle, { grep: "needle" }))).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
    expect((await a.run(readOutput(big.handle, { json_path: "$.records[1999].name" }))).structured.value).toBe("record-1999");
  });

  it("an identical read-only call by another token reaches the backend again; the same token's repeat is a cache hit", async () => {
    const first = await a.run({ tool_id: "kv:lookup", args: { key: "k" } });
    expect(first).toMatchObject({ ok: true, result: "k = value-k (lookup #1)" });
    const again = await a.run({ tool_id: "kv:lookup", args: { key: "k" } });
    expect(again).toMatchObject({ cache: "hit", result: "k = value-k (lookup #1)" });
    const other = await b.run({ tool_id: "kv:lookup", args: { key: "k" } });
    expect(other).toMatchObject({ ok: true, result: "k = value-k (lookup #2)" });
    expect(other.cache).toBeUndefined();
    expect(lookups(callLog)).toBe(2);
  });
});

describe("over HTTP with metatools.cache.shareAcrossPrincipals", () => {
  it("serves one token's cached result to another, with one backend call", async () => {
    const server = await serve({ cache: { shareAcrossPrincipals: true } });
    const [a, b] = await Promise.all([connect(server.url, TEST_TOKEN), connect(server.url, OTHER_TOKEN)]);
    expect(await a.run({ tool_id: "kv:lookup", args: { key: "s" } })).toMatchObject({ ok: true, result: "s = value-s (lookup #1)" });
    expect(await b.run({ tool_id: "kv:lookup", args: { key: "s" } })).toMatchObject({ ok: true, cache: "hit", result: "s = value-s (lookup #1)" });
    expect(lookups(server.callLog)).toBe(1);
    // Handles are never shared: the option is about the cache only.
    const big = await a.run({ tool_id: "kv:big_json", args: { count: 2000 } });
    expect(await b.run(readOutput(big.handle))).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
  }, 30_000);
});

describe("stateless replicas sharing Redis", () => {
  let redis: RedisServer;
  let callLog: string;
  let onFirst: { a: Caller };
  let onSecond: { a: Caller; b: Caller };

  beforeAll(async () => {
    redis = await startRedis();
    callLog = join(tempDir(), "calls.log");
    const store = { url: redis.url, prefix: "principals-test" };
    const [one, two] = await Promise.all([serve({ store }, { callLog, stateless: true }), serve({ store }, { callLog, stateless: true })]);
    onFirst = { a: await connect(one.url, TEST_TOKEN) };
    onSecond = { a: await connect(two.url, TEST_TOKEN), b: await connect(two.url, OTHER_TOKEN) };
  }, 30_000);

  afterAll(() => redis?.stop());

  it("keep each token's cached results and handles its own across replicas", async () => {
    expect(await onFirst.a.run({ tool_id: "kv:lookup", args: { key: "r" } })).toMatchObject({ result: "r = value-r (lookup #1)" });
    // The same token on the other replica: served from Redis. Another token there: not.
    expect(await onSecond.a.run({ tool_id: "kv:lookup", args: { key: "r" } })).toMatchObject({ cache: "hit", result: "r = value-r (lookup #1)" });
    const other = await onSecond.b.run({ tool_id: "kv:lookup", args: { key: "r" } });
    expect(other.cache).toBeUndefined();
    expect(lookups(callLog)).toBe(2);

    const big = await onFirst.a.run({ tool_id: "kv:big_json", args: { count: 2000 } });
    expect(await onSecond.a.run(big.next.arguments)).toMatchObject({ ok: true, handle: big.handle });
    expect(await onSecond.b.run(big.next.arguments)).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
  });
});
