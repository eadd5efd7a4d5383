/**
 * A client that launches `serve` again gets its handshake at once: the
 * answers the last launch of the same words over the same config gave to
 * `initialize` and `tools/list`, sent before the rest of metatools is
 * loaded, each exactly once. A changed config is answered by the server
 * itself. The built CLI over stdio, raw JSON-RPC and a real SDK client.
 */
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { servers, tempDir, testHomes } from "../helpers/harness.js";

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

/** One launch: the handshake, the tool list and one search sent as a client does; every line of stdout and stderr once the search is answered. */
function launch(config: string): Promise<{ answers: { id?: unknown; result?: Record<string, unknown> }[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "serve", "--config", config], { env: { ...process.env, ...testHomes() }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
      const answers = stdout
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id?: unknown; result?: Record<string, unknown> });
      if (answers.length === 1) {
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })}\n`);
      }
      // The search is answered last (it waits for the backends): any second answer to the handshake came before it.
      if (answers.some((a) => a.id === 2)) child.stdin.end();
      else if (answers.some((a) => a.id === 1) && !stdout.includes('"id":2'))
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_tools", arguments: { query: "echo" } } })}\n`,
        );
    });
    child.on("error", reject);
    child.on("close", () =>
      resolve({
        answers: stdout
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
        stderr,
      }),
    );
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

describe("the handshake at once", () => {
  it("replays the last launch's answers to initialize and tools/list, each once; a changed config is answered afresh", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));

    const first = await launch(config);
    expect(first.stderr).not.toContain("answered at once");
    const second = await launch(config);
    expect(second.stderr).toContain("the handshake was answered at once");
    for (const run of [first, second]) expect(run.answers.map((a) => a.id)).toEqual([0, 1, 2]);
    // What the second launch was told: the namespaces the first one's end knew, and the same three tools.
    expect(String(second.answers[0]!.result!.instructions)).toMatch(/everything \(\d+\)/);
    expect(second.answers[1]!.result).toEqual(first.answers[1]!.result);
    // The search after it works as ever.
    expect(JSON.stringify(second.answers[2]!.result)).toContain("everything:echo");

    // A changed config: the server answers the handshake itself.
    appendFileSync(config, "\n");
    const changed = await launch(config);
    expect(changed.stderr).not.toContain("answered at once");
    expect(changed.answers.map((a) => a.id)).toEqual([0, 1, 2]);
  }, 60_000);

  it("an SDK client connects and calls as ever over a replayed handshake", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
    const env = { PATH: process.env.PATH ?? "", ...testHomes() };
    for (let i = 0; i < 2; i++) {
      const client = new Client({ name: "quick", version: "1" });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config], env, stderr: "ignore" }));
      try {
        expect((await client.listTools()).tools).toHaveLength(3);
        const run = await client.callTool({ name: "run_tool", arguments: { tool_id: "everything:echo", args: { message: `launch ${i}` } } });
        expect(JSON.stringify(run.content)).toContain(`launch ${i}`);
      } finally {
        await client.close();
      }
    }
  }, 60_000);
});
