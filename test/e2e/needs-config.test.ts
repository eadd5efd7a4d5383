/**
 * One server whose entry cannot be used as written (a `${VAR}` that is not
 * set, a field of the wrong kind) stops nothing else: it is `needs_config`
 * with the exact fix in doctor, search and run_tool, every other server
 * serves, and a disabled entry is never read. `metatools init` says so
 * plainly. Through the built CLI, and a real MCP client against
 * `metatools serve` on stdio.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { servers, tempDir, testHomes } from "../helpers/harness.js";

let dir: string;
let config: string;
/** The variables named below, removed from the children's environment whatever the runner's holds. */
const UNSET = { BRAVE_API_KEY: undefined, NEVER_READ_TOKEN: undefined };

beforeAll(() => {
  dir = tempDir();
  config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        everything: servers.everything(),
        "brave-search": { command: "npx", args: ["-y", "@modelcontextprotocol/server-brave-search"], env: { BRAVE_API_KEY: "${BRAVE_API_KEY}" } },
        typo: { command: "node", args: "server.js" },
        // Disabled: never read, so neither its unset variable nor its bad field matters.
        parked: { command: "x", args: 5, env: { T: "${NEVER_READ_TOKEN}" }, disabled: true },
      },
      metatools: { code: { enabled: false }, search: { embedder: false } },
    }),
  );
});

const FIX = "set BRAVE_API_KEY in the environment metatools runs in";

describe("a server whose entry cannot be used as written", () => {
  it("doctor lists it as needs_config with the fix, the others as ready, and exits 1", async () => {
    const text = await runCli(["doctor", "--config", config], { env: UNSET });
    expect(text.code, text.stdout + text.stderr).toBe(1);
    expect(text.stdout).toMatch(/^brave-search\s+stdio\s+needs_config\s+0/m);
    expect(text.stdout).toMatch(/^typo\s+stdio\s+needs_config\s+0/m);
    expect(text.stdout).toMatch(/^everything\s+stdio\s+ready\s+\d+/m);
    // A disabled server is listed as such (never read, never a problem).
    expect(text.stdout).toMatch(/^parked\s+stdio\s+disabled\s+0/m);
    expect(text.stdout).not.toContain("NEVER_READ_TOKEN");
    expect(text.stdout).toContain("✗ brave-search: needs_config: environment variable BRAVE_API_KEY is not set");
    expect(text.stdout).toContain(`→ ${FIX}`);
    expect(text.stdout).toContain(`→ correct mcpServers.typo.args in ${config}`);

    const json = await runCli(["doctor", "--json", "--config", config], { env: UNSET });
    const report = JSON.parse(json.stdout) as { backends: { namespace: string; status: string }[]; problems: { subject: string; fix: string }[] };
    expect(Object.fromEntries(report.backends.map((b) => [b.namespace, b.status]))).toMatchObject({
      everything: "ready",
      "brave-search": "needs_config",
      typo: "needs_config",
    });
    expect(report.backends.find((b) => b.namespace === "parked")).toMatchObject({ status: "disabled", kind: "stdio", tools: 0 });
    expect(report.problems.map((p) => p.subject)).not.toContain("parked");
    expect(report.problems.find((p) => p.subject === "brave-search")?.fix).toContain(FIX);
  }, 30_000);

  it("search answers from the others and lists it under unavailable with the fix and no retry", async () => {
    const { code, stdout, stderr } = await runCli(["search", "add two numbers", "--json", "--config", config], { env: UNSET });
    expect(code, stderr).toBe(0);
    const body = JSON.parse(stdout) as { hits: { id: string }[]; unavailable: Record<string, unknown>[] };
    expect(body.hits[0]!.id).toBe("everything:get-sum");
    const brave = body.unavailable.find((u) => u.namespace === "brave-search")!;
    expect(brave).toMatchObject({ status: "needs_config", error: expect.stringContaining("BRAVE_API_KEY is not set") });
    expect(brave.fix).toContain(`a person must ${FIX}`);
    expect(brave.retry).toBeUndefined();
    expect(brave.retry_at).toBeUndefined();
    // A person reading the text output sees the fix too, not only the status.
    const text = await runCli(["search", "add two numbers", "--config", config], { env: UNSET });
    expect(text.stdout).toMatch(/! brave-search: needs_config — .*BRAVE_API_KEY is not set/);
    expect(text.stdout).toContain(`→ a person must ${FIX}`);
  }, 30_000);

  it("serve starts; an agent is told once, and run_tool says a person must fix the config, with no retry and no unrelated tools", async () => {
    const client = new Client({ name: "needs-config-test", version: "1.0.0" });
    const env: Record<string, string> = { ...getDefaultEnvironment(), ...testHomes() };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config], env, stderr: "ignore" }));
    const call = async (name: string, args: Record<string, unknown>) =>
      JSON.parse(((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]!.text) as Record<string, any>;
    try {
      const first = await call("search_tools", { query: "add two numbers" });
      expect(first.hits[0].id).toBe("everything:get-sum");
      expect(first.unavailable.map((u: { namespace: string; status: string }) => `${u.namespace}=${u.status}`).sort()).toEqual([
        "brave-search=needs_config",
        "typo=needs_config",
      ]);
      // Told once per session: the next reply does not repeat it.
      const second = await call("search_tools", { query: "echo" });
      expect(second.unavailable).toBeUndefined();

      const refused = await call("run_tool", { tool_id: "brave-search:brave_web_search", args: { query: "mcp" } });
      expect(refused).toMatchObject({ ok: false, error: { code: "needs_config" } });
      expect(refused.error.message).toContain("BRAVE_API_KEY is not set");
      expect(refused.warning).toContain(`a person must ${FIX}`);
      expect(refused.next).toBeUndefined();
      expect(refused.did_you_mean).toBeUndefined();
      expect(JSON.stringify(refused)).not.toContain("everything:");
      expect((await call("run_tool", { tool_id: "everything:get-sum", args: { a: 2, b: 3 } })).ok).toBe(true);
    } finally {
      await client.close();
    }
  }, 30_000);

  it("init says plainly that such a server will not start until the variable is set, and the rest will", async () => {
    const source = join(dir, "client", "claude.json");
    mkdirSync(join(dir, "client"), { recursive: true });
    writeFileSync(
      source,
      JSON.stringify({
        mcpServers: {
          everything: servers.everything(),
          "brave-search": { command: "npx", args: ["-y", "@modelcontextprotocol/server-brave-search"], env: { BRAVE_API_KEY: "${BRAVE_API_KEY}" } },
        },
      }),
    );
    const out = join(dir, "imported.json");
    const { code, stdout, stderr } = await runCli(["init", "--from", source, "--out", out], { cwd: dir, env: UNSET });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(
      "brave-search will not start until BRAVE_API_KEY is set in the environment metatools runs in (not set here); the other server starts without it",
    );
    expect(stdout).not.toContain("set before serving");
    const json = await runCli(["init", "--from", source, "--out", out, "--force", "--json"], { cwd: dir, env: UNSET });
    expect(JSON.parse(json.stdout).needsConfig).toEqual([expect.objectContaining({ namespace: "brave-search", fix: expect.stringContaining(FIX) })]);
  }, 30_000);
});
