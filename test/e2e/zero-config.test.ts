/**
 * With no config at all, `metatools serve` in this repository is already
 * useful: the built-in code tools work over the working directory, and
 * search is hybrid with the built-in embedder, offline, through a real MCP
 * client on real stdio.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

/** Preloaded into the server: any attempt to reach the network fails and is logged. */
const NO_NETWORK = fileURLToPath(new URL("../fixtures/no-network.mjs", import.meta.url));

let client: Client;
const home = tempDir();
const networkLog = join(tempDir(), "network.log");

beforeAll(async () => {
  // The repository root, with no metatools.json in it and none named by the environment; the user's cache under a fresh HOME.
  const env = { ...process.env, HOME: home, NO_NETWORK_LOG: networkLog } as Record<string, string>;
  delete env.METATOOLS_CONFIG;
  delete env.XDG_CACHE_HOME;
  delete env.XDG_STATE_HOME;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["--import", NO_NETWORK, CLI, "serve"],
    cwd: process.cwd(),
    env,
    stderr: "pipe",
  });
  client = new Client({ name: "zero-config-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  rmSync(home, { recursive: true, force: true });
});

async function call(name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBeFalsy();
  const text = (result.content as { text: string }[])[0]!.text;
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000);
  return JSON.parse(text);
}

describe("metatools serve with no config", () => {
  it("lists the code namespace in its instructions", () => {
    expect(client.getInstructions()).toMatch(/code \(5\)/);
  });

  it("answers search_tools in hybrid mode once the tools are embedded, with no network, caching under the user's cache folder", async () => {
    let body = await call("search_tools", { query: "where is this function defined" });
    for (const started = Date.now(); JSON.stringify(body).includes("still embedding") && Date.now() - started < 10_000;) {
      await new Promise((r) => setTimeout(r, 50));
      body = await call("search_tools", { query: "where is this function defined" });
    }
    expect(body.mode).toBe("hybrid");
    expect(JSON.stringify(body)).not.toMatch(/still embedding|semantic search is unavailable/);
    expect(body.hits[0].id).toBe("code:symbols");
    const cache = join(home, ".cache", "metatools", "embeddings");
    expect(readdirSync(cache).filter((f) => f.startsWith("static_builtin_"))).toHaveLength(1);
    expect(existsSync(networkLog) ? readFileSync(networkLog, "utf8") : "").toBe("");
  });

  it("(the network guard it runs under does refuse a connection)", () => {
    const log = join(tempDir(), "probe.log");
    const probe = spawnSync(process.execPath, ["--import", NO_NETWORK, "-e", "fetch('http://example.com/').catch(() => process.exit(3))"], {
      env: { ...process.env, NO_NETWORK_LOG: log },
    });
    expect(probe.status).toBe(3);
    expect(readFileSync(log, "utf8")).toContain("fetch http://example.com/");
  });

  it.each([
    ["find where a function is defined", "code:symbols"],
    ["who calls this function", "code:references"],
    ["find TODO comments", "code:grep"],
    ["list the files of the project", "code:tree"],
    ["read lines of a file", "code:read_file"],
  ])("search %j has %s in the top 3", async (query, id) => {
    const body = await call("search_tools", { query });
    expect(body.hits.slice(0, 3).map((h: { id: string }) => h.id)).toContain(id);
  });

  it.each([
    ["code:tree", { depth: 1 }, (s: any) => expect(s.entries).toContain("src/")],
    ["code:symbols", { pattern: "createMetatools" }, (s: any) => expect(s.symbols[0]).toMatchObject({ file: "src/app.ts", kind: "function" })],
    ["code:references", { symbol: "createMetatools", path: "src" }, (s: any) => expect(s.total).toBeGreaterThan(1)],
    ["code:grep", { pattern: "export function createMetatools", path: "src" }, (s: any) => expect(s.files[0].file).toBe("src/app.ts")],
    ["code:read_file", { path: "package.json", json_path: "$.name" }, (s: any) => expect(s.value).toBe("metatools")],
  ])("run_tool %s works", async (tool_id, args, check) => {
    const body = await call("run_tool", { tool_id, args });
    expect(body.ok).toBe(true);
    check(body.structured);
  });

  it("describe_tool full carries the catalog's notes and examples", async () => {
    const body = await call("describe_tool", { tool_id: "code:symbols", detail_level: "full" });
    expect(JSON.stringify(body)).toContain("name_path");
    expect(JSON.stringify(body)).toContain("Executor/run");
  });
});
