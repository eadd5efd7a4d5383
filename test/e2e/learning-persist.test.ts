/**
 * What search learns outlives the process, from outside: the built
 * `metatools serve` over stdio with a real MCP client (a search, then a run,
 * in one session), the memory store (the default), and the built
 * `metatools learn` as a command beside it. The learning file is the one
 * the app names for the config, in the test run's cache folder.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, it } from "vitest";
import { cacheHome } from "../../src/config/env.js";
import { learningFile } from "../../src/learn/file-store.js";
import type { ShownTerm } from "../../src/learn/inspect.js";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";
import { serveAndConnect } from "../helpers/serve.js";

const TASK = "archive the quarterly numbers for finance";
const SIMILAR = "archive quarterly numbers for the finance team";

/** A config file serving the executor fixture, with search on BM25 (quicker to start; learning is the same). */
function configFile(extra: Record<string, unknown> = {}): string {
  const dir = tempDir();
  const file = join(dir, "metatools.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { exec: servers.exec(join(dir, "calls.log")) }, metatools: { search: { embedder: false }, ...extra } }));
  return file;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, any>;
}

const search = async (client: Client, query: string) => ((await call(client, "search_tools", { query, limit: 5 })).hits as { id: string }[]).map((h) => h.id);

/** One session of an agent: a search for the task, then a successful run of the tool it chose. */
async function teach(client: Client, query: string, tool: string, args: Record<string, unknown>): Promise<void> {
  await search(client, query);
  expect((await call(client, "run_tool", { tool_id: tool, args })).ok).not.toBe(false);
}

async function show(config: string): Promise<ShownTerm[]> {
  const shown = await runCli(["learn", "--show", "--json", "--config", config]);
  expect(shown.code, shown.stderr).toBe(0);
  return (JSON.parse(shown.stdout) as { terms: ShownTerm[] }).terms;
}

/** The tools learning leads `term` to, as `learn --show --json` lists them. */
const toolsOf = (terms: ShownTerm[], term: string) => terms.find((t) => t.term === term)?.tools.map((tool) => tool.id) ?? [];

describe("what search learns is kept across restarts (memory store, a config file)", () => {
  it("what one serve learned, the next serve on the same config ranks with; learn --show and --export - list it", async () => {
    const config = configFile();
    const first = await serveAndConnect("stdio", config);
    const before = await search(first.client, SIMILAR);
    expect(before[0]).not.toBe("exec:put");
    await teach(first.client, TASK, "exec:put", { key: "report", value: "# Q3" });
    await first.close();
    expect(existsSync(learningFile(cacheHome(), config))).toBe(true);

    const second = await serveAndConnect("stdio", config);
    expect((await search(second.client, SIMILAR))[0]).toBe("exec:put");
    await second.close();

    const text = await runCli(["learn", "--show", "--config", config]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(learningFile(cacheHome(), config));
    expect(text.stdout).toMatch(/^TERM\s+TOOL\s+WEIGHT\s+WHOSE\s+TAUGHT$/m);
    expect(text.stdout).toMatch(/^quarter\s+exec:put\s+1\.\d\d\s+yours\s+\d+ s ago$/m);
    const terms = await show(config);
    expect(toolsOf(terms, "quarter")).toEqual(["exec:put"]);
    expect(terms.find((t) => t.term === "quarter")!.tools[0]).toMatchObject({ own: expect.any(Number), imported: 0, others: { callers: 0 } });
    const exported = await runCli(["learn", "--export", "-", "--config", config]);
    expect(exported.code, exported.stderr).toBe(0);
    expect((JSON.parse(exported.stdout) as { terms: Record<string, Record<string, [number, number]>> }).terms.quarter?.["exec:put"]?.[0]).toBeGreaterThan(0.9);
  });

  it("a command beside a running serve: neither loses the other's learning, and --reset forgets both", async () => {
    const config = configFile();
    const server = await serveAndConnect("stdio", config);
    try {
      await teach(server.client, TASK, "exec:put", { key: "report", value: "# Q3" });
      // The server writes a few seconds after it learned.
      await expect.poll(() => toolsOf(readTerms(config), "quarter"), { timeout: 15_000, interval: 250 }).toEqual(["exec:put"]);
      const seed = join(tempDir(), "seed.json");
      writeFileSync(seed, JSON.stringify({ format: "metatools-learned", version: 1, exportedAt: "", terms: { invoic: { "exec:lookup": [3, Date.now()] } } }));
      const imported = await runCli(["learn", "--import", seed, "--config", config]);
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/^imported 1 terms from .*seed\.json into file .*\.json$/m);
      // The server learns more after the command wrote; its next write keeps the import.
      await teach(server.client, "look up the invoice total", "exec:lookup", { key: "invoice" });
      expect((await search(server.client, "invoice"))[0]).toBe("exec:lookup");
    } finally {
      await server.close();
    }
    const terms = await show(config);
    expect(toolsOf(terms, "quarter")).toEqual(["exec:put"]);
    expect(terms.find((t) => t.term === "invoic")!.tools[0]).toMatchObject({ id: "exec:lookup", imported: 3, own: expect.any(Number) });
    expect(toolsOf(terms, "total")).toEqual(["exec:lookup"]);

    const reset = await runCli(["learn", "--reset", "--config", config]);
    expect(reset.code, reset.stderr).toBe(0);
    expect(await show(config)).toEqual([]);
    const shown = await runCli(["learn", "--show", "--config", config]);
    expect(shown.stdout).toMatch(/^Nothing learned yet \(file .*\)/);
  });

  it("a corrupt learning file is reported and replaced: serve and the command go on without it", async () => {
    const config = configFile();
    const file = learningFile(cacheHome(), config);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, "{ this is not JSON");
    const shown = await runCli(["learn", "--show", "--config", config]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stderr).toContain(`${file} is not a valid learning file`);
    expect(shown.stdout).toMatch(/^Nothing learned yet/);

    writeFileSync(file, JSON.stringify({ format: "something else" }));
    const server = await serveAndConnect("stdio", config);
    try {
      await teach(server.client, TASK, "exec:put", { key: "report", value: "# Q3" });
      expect((await search(server.client, SIMILAR))[0]).toBe("exec:put");
      expect(server.stderr()).toMatch(
        /learning: .*\.json is not a valid learning file \(expected \{"format": "metatools-learning".*replaced at the next write/,
      );
    } finally {
      await server.close();
    }
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ format: "metatools-learning", version: 1 });
    expect(toolsOf(await show(config), "quarter")).toEqual(["exec:put"]);
  });

  it("without a config file, or with learn.persist false, the command says where learning lives and why it cannot reach it", async () => {
    const bare = await runCli(["learn", "--show"], { cwd: tempDir() });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/there is no config file, so what a server learns with the memory store lives in that server's process alone/);
    const off = await runCli(["learn", "--export", "-", "--config", configFile({ learn: { persist: false } })]);
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/metatools\.learn\.persist is false.*redis:\/\//);
  });
});

/** The learning file's terms as `learn --show` would list them, read without the command: the file's shared rows. */
function readTerms(config: string): ShownTerm[] {
  const file = learningFile(cacheHome(), config);
  if (!existsSync(file)) return [];
  const { entries } = JSON.parse(readFileSync(file, "utf8")) as { entries: Record<string, [Record<string, unknown>, number]> };
  return Object.entries(entries)
    .filter(([key]) => /^\d+:s:/.test(key))
    .map(([key, [row]]) => ({ term: key.replace(/^\d+:s:/, ""), tools: Object.keys(row).map((id) => ({ id })), taught: "" }) as unknown as ShownTerm);
}
