/**
 * The stdio server ends within 5 s of its client closing stdin, or of
 * SIGTERM, whatever is in flight: a backend call that would take minutes,
 * served by a backend that ignores SIGTERM itself, which is stopped too.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/harness.js";

const execServer = pathToFileURL(fileURLToPath(new URL("../../fixtures/exec-server.mjs", import.meta.url))).href;

function startServer(marker: string): { child: ChildProcess; exited: Promise<number> } {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  const stubborn = `/* ${marker} */ process.on("SIGTERM", () => {}); await import(${JSON.stringify(execServer)});`;
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { exec: { command: process.execPath, args: ["--input-type=module", "-e", stubborn], env: { CALL_LOG: join(dir, "calls.log") } } },
    }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--config", config, "--root", dir], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = new Promise<number>((resolve) => child.on("exit", (code, signal) => resolve(code ?? (signal ? 128 : -1))));
  return { child, exited };
}

/** Sends JSON-RPC lines; resolves with the reply to `id` when it comes. */
function send(child: ChildProcess, message: Record<string, unknown>): void {
  child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
}

function reply(child: ChildProcess, id: number): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    let buffer = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split("\n").slice(0, -1)) {
        const parsed = JSON.parse(line) as Record<string, any>;
        if (parsed.id === id) resolve(parsed);
      }
      buffer = buffer.slice(buffer.lastIndexOf("\n") + 1);
    });
  });
}

/** Whether a process whose command line holds `marker` is running. */
function running(marker: string): boolean {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes(marker);
}

async function withCallInFlight(marker: string): Promise<{ child: ChildProcess; exited: Promise<number> }> {
  const server = startServer(marker);
  const ready = reply(server.child, 1);
  send(server.child, { id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } });
  await ready;
  send(server.child, { method: "notifications/initialized" });
  const listed = reply(server.child, 2);
  send(server.child, { id: 2, method: "tools/call", params: { name: "search_tools", arguments: { query: "slow steps" } } });
  expect(JSON.stringify(await listed)).toContain("exec:slow");
  send(server.child, { id: 3, method: "tools/call", params: { name: "run_tool", arguments: { tool_id: "exec:slow", args: { steps: 1000, step_ms: 200 } } } });
  await new Promise((resolve) => setTimeout(resolve, 300));
  return server;
}

describe("shutdown with work in flight", () => {
  it("stdin closing ends the process within 5 s, and its backend with it", async () => {
    const marker = `stubborn-${randomUUID()}`;
    const { child, exited } = await withCallInFlight(marker);
    expect(running(marker)).toBe(true);
    const started = performance.now();
    child.stdin!.end();
    expect(await exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(running(marker)).toBe(false);
  }, 20_000);

  it("SIGTERM ends the process within 5 s, and its backend with it", async () => {
    const marker = `stubborn-${randomUUID()}`;
    const { child, exited } = await withCallInFlight(marker);
    expect(running(marker)).toBe(true);
    const started = performance.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(running(marker)).toBe(false);
  }, 20_000);
});
