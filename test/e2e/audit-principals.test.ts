/**
 * Whose call each audit record is, over HTTP: real `metatools serve --http`
 * processes accepting two bearer tokens, a real SDK client per token, the
 * executor fixture as the backend. With the default file each record
 * carries its token's principal (a hash, never the token); with a Redis
 * store, two stateless replicas add to one trail in Redis, which the built
 * `metatools audit` reads back and writes no file for.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../src/audit/record.js";
import { defaultAuditFile } from "../../src/config/audit-schema.js";
import { tokenPrincipal } from "../../src/security/principal.js";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const OTHER_TOKEN = "other-token-0123456789abcdef";
const SECRET_A = "sk-live-first-caller-93b1f0";
const SECRET_B = "sk-live-second-caller-5e27c4";

const opened: Client[] = [];
const started: HttpChild[] = [];
let redis: RedisServer | undefined;

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close().catch(() => {})));
  await Promise.all(started.map((s) => s.stop()));
  await redis?.stop();
});

/** A config serving the executor fixture to both tokens (TEST_TOKEN comes from METATOOLS_TOKENS). */
function configFile(metatools: Record<string, unknown> = {}): string {
  const dir = tempDir();
  const file = join(dir, "metatools.json");
  const base = { code: { enabled: false }, search: { embedder: false }, http: { tokens: [OTHER_TOKEN] } };
  writeFileSync(file, JSON.stringify({ mcpServers: { kv: servers.exec(join(dir, "calls.log")) }, metatools: { ...base, ...metatools } }));
  return file;
}

async function serve(config: string, stateless = false): Promise<HttpChild> {
  const server = await startHttp(["--config", config, ...(stateless ? ["--stateless"] : [])]);
  started.push(server);
  return server;
}

async function runAs(url: string, token: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const client = new Client({ name: "audit-principal-test", version: "1" });
  await client.connect(httpClientTransport(url, token));
  opened.push(client);
  const result = await client.callTool({ name: "run_tool", arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, any>;
}

const parse = (text: string): AuditRecord[] =>
  text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);

describe("audit records over HTTP carry each token's principal", () => {
  it("in the default file: two tokens, two principals, neither token nor argument written; --principal keeps one", async () => {
    const config = configFile();
    const server = await serve(config);
    expect((await runAs(server.url, TEST_TOKEN, { tool_id: "kv:lookup", args: { key: SECRET_A } })).ok).toBe(true);
    expect((await runAs(server.url, OTHER_TOKEN, { tool_id: "kv:lookup", args: { key: SECRET_B } })).ok).toBe(true);
    expect((await runAs(server.url, OTHER_TOKEN, { tool_id: "kv:no_such_tool", args: {} })).error.code).toBe("unknown_tool");
    const file = defaultAuditFile(config);
    await vi.waitFor(() => expect(parse(readFileSync(file, "utf8"))).toHaveLength(3), { timeout: 10_000, interval: 100 });

    const [a, b] = [tokenPrincipal(TEST_TOKEN), tokenPrincipal(OTHER_TOKEN)];
    expect(a).not.toBe(b);
    const trail = parse(readFileSync(file, "utf8"));
    expect(trail.map((r) => [r.principal, r.tool, r.status])).toEqual([
      [a, "kv:lookup", "ok"],
      [b, "kv:lookup", "ok"],
      [b, "(unknown)", "unknown_tool"],
    ]);
    expect(trail[0]!.args).not.toBe(trail[1]!.args);
    const text = readFileSync(file, "utf8");
    for (const value of [TEST_TOKEN, OTHER_TOKEN, SECRET_A, SECRET_B]) expect(text).not.toContain(value);

    // The table shows a principal shortened; pasted back as it shows, it keeps that caller's records.
    const table = await runCli(["audit", "--config", config]);
    expect(table.code, table.stderr).toBe(0);
    const shown = `${b.slice(0, 14)}…`;
    expect(table.stdout).toContain(shown);
    const theirs = await runCli(["audit", "--json", "--principal", shown, "--config", config]);
    expect(parse(theirs.stdout).map((r) => r.principal)).toEqual([b, b]);
  });

  it("a token given a name is its caller's name in the trail and the table, whole; two tokens may not share one", async () => {
    const config = configFile({ http: { tokens: [{ token: OTHER_TOKEN, name: "ci-bot" }] } });
    const server = await serve(config);
    expect((await runAs(server.url, OTHER_TOKEN, { tool_id: "kv:lookup", args: { key: SECRET_B } })).ok).toBe(true);
    const file = defaultAuditFile(config);
    await vi.waitFor(() => expect(parse(readFileSync(file, "utf8"))).toHaveLength(1), { timeout: 10_000, interval: 100 });
    expect(parse(readFileSync(file, "utf8"))[0]!.principal).toBe("token:@ci-bot");
    const table = await runCli(["audit", "--config", config]);
    expect(table.stdout).toContain("token:@ci-bot ");
    expect((await runCli(["audit", "--json", "--principal", "token:@ci-bot", "--config", config])).stdout).toContain('"token:@ci-bot"');

    const twice = configFile({
      http: {
        tokens: [
          { token: OTHER_TOKEN, name: "ci-bot" },
          { token: `${OTHER_TOKEN}-2`, name: "ci-bot" },
        ],
      },
    });
    const refused = await runCli(["doctor", "--config", twice]);
    expect(`${refused.stdout}${refused.stderr}`).toContain('"ci-bot" names another token too');
  });

  it("in Redis: two stateless replicas add to one trail, which metatools audit reads; no file is written", async () => {
    redis = await startRedis();
    const config = configFile({ store: { url: redis.url, prefix: "audit-test" } });
    const [one, two] = await Promise.all([serve(config, true), serve(config, true)]);
    expect((await runAs(one.url, TEST_TOKEN, { tool_id: "kv:lookup", args: { key: SECRET_A } })).ok).toBe(true);
    expect((await runAs(two.url, OTHER_TOKEN, { tool_id: "kv:lookup", args: { key: SECRET_B } })).ok).toBe(true);

    const read = async () => parse((await runCli(["audit", "--json", "--config", config])).stdout);
    await vi.waitFor(async () => expect(await read()).toHaveLength(2), { timeout: 10_000, interval: 200 });
    const trail = await read();
    expect(trail.map((r) => r.principal).sort()).toEqual([tokenPrincipal(TEST_TOKEN), tokenPrincipal(OTHER_TOKEN)].sort());
    expect(trail.every((r) => r.tool === "kv:lookup" && r.status === "ok")).toBe(true);
    const table = await runCli(["audit", "--config", config]);
    expect(table.stdout).toMatch(/^Audit trail \(redis:\/\/127\.0\.0\.1:\d+ \(the audit list\)\): the 2 records, oldest first\.$/m);
    expect(table.stdout).not.toContain(SECRET_A);
    expect(existsSync(defaultAuditFile(config))).toBe(false);
  });
});
