/**
 * The audit trail from outside: the built `metatools serve` over stdio with
 * a real SDK client and the public everything server, five run_tool calls
 * that end five ways, and the built `metatools audit` reading the file the
 * config names by default (in the test run's state folder). One record per
 * call, with who, which profile, which tool and how it went; the arguments
 * only as a digest: a secret-looking value sent in them is nowhere in the
 * file, nor in what the command prints.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { argsDigest, type AuditRecord } from "../../src/audit/record.js";
import { defaultAuditFile } from "../../src/config/audit-schema.js";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";
import { serveAndConnect, type Served } from "../helpers/serve.js";

const SECRET = "sk-live-AUDIT-7c1e9b2f4d6a8e0c";

let config: string;
let served: Served;

async function run(client: Client, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name: "run_tool", arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, any>;
}

const records = (): AuditRecord[] =>
  readFileSync(defaultAuditFile(config), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditRecord);

/** The five calls, and how each ends as run_tool tells the agent. */
const CALLS: { args: Record<string, unknown>; code: string }[] = [
  { args: { tool_id: "everything:echo", args: { message: SECRET } }, code: "ok" },
  { args: { tool_id: "everything:no_such_tool", args: { message: SECRET } }, code: "unknown_tool" },
  { args: { tool_id: "everything:get-sum", args: { a: SECRET, b: 1 } }, code: "invalid_args" },
  { args: { tool_id: "everything:get-resource-reference", args: { resourceId: 0 } }, code: "tool_error" },
  { args: { args: { message: SECRET } }, code: "invalid_args" },
];

beforeAll(async () => {
  const dir = tempDir();
  config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false }, search: { embedder: false } } }),
  );
  served = await serveAndConnect("stdio", config);
  for (const call of CALLS) {
    const body = await run(served.client, call.args);
    expect(body.ok === false ? body.error.code : "ok", JSON.stringify(body).slice(0, 300)).toBe(call.code);
  }
  // Records are appended in the background, a moment after each reply.
  await vi.waitFor(() => expect(records()).toHaveLength(CALLS.length), { timeout: 10_000, interval: 100 });
}, 60_000);

afterAll(() => served?.close());

describe("the audit trail of run_tool over stdio", () => {
  it("holds one record per call, in order: the local principal, the default profile, the tool when it exists, each outcome", () => {
    const trail = records();
    expect(trail.map((r) => r.status)).toEqual(["ok", "unknown_tool", "invalid_args", "tool_error", "invalid_args"]);
    expect(trail.map((r) => r.tool)).toEqual(["everything:echo", "(unknown)", "everything:get-sum", "everything:get-resource-reference", "(unknown)"]);
    for (const record of trail) {
      expect(record).toMatchObject({ v: 1, principal: "local", profile: "default", approval: "not_needed" });
      expect(Date.parse(record.time)).toBeGreaterThan(Date.now() - 120_000);
      expect(record.duration_ms).toBeGreaterThanOrEqual(0);
    }
    // The digest of what was sent, key order aside; the same arguments give the same digest whatever the tool.
    expect(trail[0]!.args).toBe(argsDigest({ message: SECRET }));
    expect(trail[1]!.args).toBe(trail[0]!.args);
    expect(trail[2]!.args).toBe(argsDigest({ b: 1, a: SECRET }));
  });

  it("never holds an argument's value, and is readable by its owner alone", () => {
    const text = readFileSync(defaultAuditFile(config), "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("AUDIT-7c1e");
    expect(statSync(defaultAuditFile(config)).mode & 0o777).toBe(0o600);
  });
});

describe("metatools audit", () => {
  it("--tool 'everything:*' lists the calls of that server's tools as a table, and no argument", async () => {
    const { code, stdout, stderr } = await runCli(["audit", "--tool", "everything:*", "--config", config]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`Audit trail (${defaultAuditFile(config)}): the 3 records matching --tool everything:*, oldest first.`);
    expect(stdout).toMatch(/^TIME \(UTC\)\s+PRINCIPAL\s+PROFILE\s+TOOL\s+APPROVAL\s+STATUS\s+MS$/m);
    const rows = stdout.split("\n").filter((line) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(line));
    expect(rows.map((row) => row.split(/\s{2,}/).slice(1, 6))).toEqual([
      ["local", "default", "everything:echo", "not_needed", "ok"],
      ["local", "default", "everything:get-sum", "not_needed", "invalid_args"],
      ["local", "default", "everything:get-resource-reference", "not_needed", "tool_error"],
    ]);
    expect(stdout).not.toContain(SECRET);
  });

  it("--json prints one record a line, as the file holds them; --last and --tool narrow it", async () => {
    const all = await runCli(["audit", "--json", "--config", config]);
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.trim().split("\n");
    expect(lines.map((line) => JSON.parse(line) as AuditRecord)).toEqual(records());

    const last = await runCli(["audit", "--json", "--last", "2", "--config", config]);
    expect(
      last.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditRecord).status),
    ).toEqual(["tool_error", "invalid_args"]);

    const echo = await runCli(["audit", "--json", "--tool", "everything:echo", "--config", config]);
    expect(
      echo.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as AuditRecord).tool),
    ).toEqual(["everything:echo"]);
  });

  it("--principal and --profile keep one caller's or one profile's records; none matching says so", async () => {
    const local = await runCli(["audit", "--json", "--principal", "local", "--profile", "default", "--config", config]);
    expect(local.stdout.trim().split("\n")).toHaveLength(CALLS.length);
    const other = await runCli(["audit", "--principal", "token:", "--config", config]);
    expect(other.code).toBe(0);
    expect(other.stdout.trim()).toBe(`No audit records matching --principal token: (${defaultAuditFile(config)}).`);
    const profile = await runCli(["audit", "--json", "--profile", "ops", "--config", config]);
    expect(profile.stdout).toBe("");
  });

  it("with the trail turned off, says so and exits 1", async () => {
    const off = join(tempDir(), "metatools.json");
    writeFileSync(off, JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false }, audit: { enabled: false } } }));
    const { code, stderr } = await runCli(["audit", "--config", off]);
    expect(code).toBe(1);
    expect(stderr).toContain("the audit trail is off in this config (metatools.audit.enabled: false)");
  });
});
