/**
 * `serve` answers the handshake and the tool list at once, whatever its
 * backends do: three take 5 s to start, one never answers, one's command
 * does not exist. Tool calls wait for them (up to the start-up grace), and
 * the first search tells the session the namespaces its instructions could
 * not name yet, once. The built CLI over stdio, with real SDK clients of
 * both generations (v1 at 2025-11-25, v2 pinned to 2026-07-28 is stateless
 * and gets fresh instructions with each discovery).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { tempDir, testHomes } from "../helpers/harness.js";

const SLOW = fileURLToPath(new URL("../fixtures/slow-start.mjs", import.meta.url));

/** Three backends slow to start, one that never answers (unless left out), one not installed; a grace long enough for the slow ones. */
function config(withSilent = true): string {
  const dir = tempDir();
  const file = join(dir, "metatools.json");
  const slow = (n: number) => ({ command: process.execPath, args: [SLOW, `ready-${n}`], env: { SLOW_START_MS: "5000" } });
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        slow1: slow(1),
        slow2: slow(2),
        slow3: slow(3),
        ...(withSilent ? { silent: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] } } : {}),
        missing: { command: "metatools-test-no-such-command" },
      },
      metatools: { code: { enabled: false }, timeouts: { startupGraceMs: 12_000, connectMs: 30_000 } },
    }),
  );
  return file;
}

function text(result: unknown): Record<string, unknown> {
  const content = (result as { content: { type: string; text: string }[] }).content;
  return JSON.parse(content[0]!.text) as Record<string, unknown>;
}

describe("serve is ready at once", () => {
  it("answers initialize and tools/list before any backend is up; the first search waits for them and names them, once", async () => {
    const client = new Client({ name: "ready", version: "1" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config()],
      env: { PATH: process.env.PATH ?? "", ...testHomes() },
      stderr: "ignore",
    });
    await client.connect(transport);
    try {
      // Answered while the slow backends were still starting: the instructions say so, and name no namespace yet.
      const instructions = client.getInstructions() ?? "";
      expect(instructions).toContain("Namespaces (tools): none yet.");
      expect(instructions).toMatch(/Not ready yet: .*slow1 \(connecting\)/);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "run_tool"]);

      // A call waits for the backends (up to the grace): the slow ones' tools are searched, and the session is told their namespaces.
      const first = text(await client.callTool({ name: "search_tools", arguments: { query: "add two numbers" } }));
      expect(String(first.namespaces)).toMatch(/slow1 \(\d+\)/);
      expect(String(first.namespaces)).toMatch(/slow3 \(\d+\)/);
      expect((first.hits as { id: string }[]).some((h) => h.id.startsWith("slow"))).toBe(true);
      // What cannot come up is listed as unavailable, with why.
      const unavailable = (first.unavailable as { namespace: string; status: string }[]).map((u) => u.namespace);
      expect(unavailable).toEqual(expect.arrayContaining(["missing"]));

      // Told once: the next search does not repeat them.
      const second = text(await client.callTool({ name: "search_tools", arguments: { query: "echo a message" } }));
      expect(second.namespaces).toBeUndefined();
    } finally {
      await client.close();
    }
  }, 60_000);

  it("a session opened once the backends are known is told their namespaces by its instructions, and search does not repeat them", async () => {
    // Nothing that never answers: each start waits only for the slow ones.
    const file = config(false);
    const first = new Client({ name: "ready", version: "1" });
    const env = { PATH: process.env.PATH ?? "", ...testHomes() };
    await first.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", file], env, stderr: "ignore" }));
    // The first run leaves a snapshot of what connected.
    await first.callTool({ name: "search_tools", arguments: { query: "add" } });
    await first.close();

    const again = new Client({ name: "ready", version: "1" });
    await again.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", file], env, stderr: "ignore" }));
    try {
      // From the snapshot, at once: the namespaces are named though the slow backends are starting again.
      expect(again.getInstructions()).toMatch(/Namespaces \(tools\): .*slow1 \(\d+\)/);
      const searched = text(await again.callTool({ name: "search_tools", arguments: { query: "add two numbers" } }));
      expect(searched.namespaces).toBeUndefined();
    } finally {
      await again.close();
    }
  }, 60_000);
});
