/**
 * With no config at all, `metatools serve` in this repository is already
 * useful: the built-in code tools work over the working directory, through
 * a real MCP client on real stdio.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

let client: Client;

beforeAll(async () => {
  // The repository root, with no metatools.json in it and none named by the environment.
  const env = { ...process.env, HOME: tempDir() } as Record<string, string>;
  delete env.METATOOLS_CONFIG;
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "serve"], cwd: process.cwd(), env, stderr: "pipe" });
  client = new Client({ name: "zero-config-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(() => client?.close());

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
