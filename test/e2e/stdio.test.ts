/**
 * The server as desktop clients launch it: `metatools serve` over stdio.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

let client: Client;
let stderr = "";

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, "config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything(), missing: { command: "no-such-binary-for-metatools" } } }));
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config], stderr: "pipe" });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d));
  client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
});

afterAll(() => client?.close());

describe("metatools serve (stdio)", () => {
  it("exposes exactly three tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["describe_tool", "run_tool", "search_tools"]);
  });

  it("starts despite a backend whose command does not exist, and says which", async () => {
    expect(client.getInstructions()).toMatch(/everything \(\d+\)/);
    const result = await client.callTool({ name: "search_tools", arguments: { query: "echo" } });
    const body = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(body.hits[0].id).toBe("everything:echo");
    expect(body.unavailable.map((u: { namespace: string }) => u.namespace)).toContain("missing");
    expect(stderr).toContain("missing");
    expect(stderr).toContain("no-such-binary-for-metatools");
  });

  it("runs a tool end to end", async () => {
    const result = await client.callTool({ name: "run_tool", arguments: { tool_id: "everything:echo", args: { message: "over stdio" } } });
    expect(result.isError).toBeFalsy();
    expect((result.content as { text: string }[])[0]!.text).toContain("over stdio");
  });
});
