/**
 * Scale-out: two `metatools serve` processes sharing one real Redis. A
 * result cached through one is served by the other without a backend call,
 * and an output handle made by one is read through the other.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedCalls, servers, tempDir } from "../../helpers/harness.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import { serveAndConnect, type Served } from "../../helpers/serve.js";

async function call(client: Client, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name: "run_tool", arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

// Over stdio (one process per client) and as stateless HTTP replicas on two ports, as behind a load balancer.
describe.each(["stdio", "http-stateless"] as const)("two replicas sharing Redis (%s)", (kind) => {
  let redis: RedisServer;
  let callLog: string;
  let served: Served[] = [];
  let replicas: Client[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    const dir = tempDir();
    callLog = join(dir, "calls.log");
    const config = join(dir, "metatools.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { kv: servers.exec(callLog) },
        metatools: { code: { enabled: false }, store: { url: redis.url, prefix: `replica-test-${kind}` } },
      }),
    );
    served = await Promise.all([serveAndConnect(kind, config), serveAndConnect(kind, config)]);
    replicas = served.map((s) => s.client);
  }, 30_000);

  afterAll(async () => {
    await Promise.all(served.map((s) => s.close()));
    await redis?.stop();
  });

  it("serves a result cached by one replica from the other, without calling the backend", async () => {
    const [a, b] = replicas as [Client, Client];
    const first = await call(a, { tool_id: "kv:lookup", args: { key: "shared" } });
    expect(first).toMatchObject({ ok: true, result: "shared = value-shared (lookup #1)" });
    const second = await call(b, { tool_id: "kv:lookup", args: { key: "shared" } });
    expect(second).toMatchObject({ ok: true, cache: "hit", result: "shared = value-shared (lookup #1)" });
    expect(loggedCalls(callLog).filter((c) => c === "lookup")).toHaveLength(1);
  });

  it("retires the cache in every replica after a write through one", async () => {
    const [a, b] = replicas as [Client, Client];
    await call(a, { tool_id: "kv:lookup", args: { key: "w" } });
    expect((await call(b, { tool_id: "kv:lookup", args: { key: "w" } })).cache).toBe("hit");
    await call(b, { tool_id: "kv:put", args: { key: "w", value: "2" } });
    expect((await call(a, { tool_id: "kv:lookup", args: { key: "w" } })).cache).toBeUndefined();
  });

  it("reads an output handle made by one replica through the other", async () => {
    const [a, b] = replicas as [Client, Client];
    const big = await call(a, { tool_id: "kv:big_json", args: { count: 2000 } });
    expect(big.handle).toMatch(/^@out_/);
    const slice = await call(b, big.next.arguments);
    expect(slice).toMatchObject({ ok: true, handle: big.handle, structured: { start_line: 1 } });
    expect(slice.structured.content).toContain('"kind": "records"');
    const byPath = await call(b, { tool_id: "metatools:read_output", args: { handle: big.handle, json_path: "$.records[1999].name" } });
    expect(byPath.structured.value).toBe("record-1999");
  });
});
