/**
 * An exact name always wins: a real MCP server's tool, named in any common
 * spelling, ranks first; a name inside a sentence counts only written as an
 * identifier; and `metatools eval --names` checks a whole dataset.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

let session: Session;

beforeAll(async () => {
  session = await openSession({ mcpServers: { files: servers.filesystem(tempDir()), everything: servers.everything() } });
});
afterAll(() => session?.close());

async function first(query: string): Promise<string | undefined> {
  return (await session.call("search_tools", { query })).hits[0]?.id;
}

describe("exact names", () => {
  it.each([
    "read_text_file",
    "read text file",
    "readTextFile",
    "ReadTextFile",
    "files:read_text_file",
    "files__read_text_file",
    "mcp__files__read_text_file",
    "please run `read_text_file` on notes.md",
  ])("%s finds files:read_text_file first", async (query) => {
    expect(await first(query)).toBe("files:read_text_file");
  });

  it("a name written as an identifier inside a sentence wins too", async () => {
    expect(await first("show me the biggest files, then call list_directory")).toBe("files:list_directory");
  });

  it("respects filters: a named tool outside the namespace asked for is not brought in", async () => {
    const reply = await session.call("search_tools", { query: "read_text_file", namespace: "everything" });
    expect(reply.hits.map((h: { id: string }) => h.id)).not.toContain("files:read_text_file");
  });

  it("metatools eval --names checks every tool of a dataset in 8 spellings", async () => {
    const dir = tempDir();
    const tools = [
      { id: "weather::Get Forecast", name: "Get Forecast", description: "Forecast for a city." },
      { id: "weather::getAlerts", name: "getAlerts", description: "Weather alerts for a region." },
      { id: "maps::geocode_v2", name: "geocode_v2", description: "Coordinates of an address." },
      { id: "maps::Get Forecast", name: "Get Forecast", description: "Traffic forecast for a road." },
    ];
    writeFileSync(join(dir, "tools.jsonl"), tools.map((t) => JSON.stringify(t)).join("\n"));
    writeFileSync(join(dir, "queries.jsonl"), JSON.stringify({ id: "1", query: "weather alerts", relevant: ["weather::getAlerts"] }));
    // Without --mode, the default configuration's: hybrid with the built-in embedder.
    const { code, stdout } = await runCli(["eval", dir, "--names", "--json"]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout).hybrid;
    expect(result).toMatchObject({ tools: 4, queries: 32, first: 1 });
    expect(result.misses).toEqual([]);
  });
});
