/**
 * `metatools serve` on stdio stops cleanly and at once when its client
 * closes stdin, whatever phase startup is in: before anything was sent,
 * and after the initialize while a backend is still starting. Exit code 0,
 * the stop logged as finished (never "did not finish"), no backend left.
 * The built CLI in a child process, as clients launch it, with a real stdio
 * backend slow to start (test/fixtures/slow-start.mjs).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

const SLOW = fileURLToPath(new URL("../fixtures/slow-start.mjs", import.meta.url));
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

interface Served {
  child: ChildProcess;
  marker: string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `serve` over a backend that takes 20 s to answer (its command line holds `marker`), waiting up to 10 s for it before the handshake. */
function serve(): Served {
  const dir = tempDir();
  const marker = `slow-${randomUUID()}`;
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { slow: { command: process.execPath, args: [SLOW, marker], env: { SLOW_START_MS: "20000" } } },
      metatools: { timeouts: { startupGraceMs: 10_000 } },
    }),
  );
  const child = spawn(process.execPath, [CLI, "serve", "--config", config, "--root", dir], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, marker, stderr: () => stderr, exited };
}

/** Whether a process whose command line holds `marker` is running. */
function running(marker: string): boolean {
  return execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).includes(marker);
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Closes stdin; the exit, how long it took, and what was logged. */
async function closeStdin(served: Served): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; stderr: string }> {
  const started = performance.now();
  served.child.stdin!.end();
  const exit = await served.exited;
  return { ...exit, ms: performance.now() - started, stderr: served.stderr() };
}

describe("serve on stdio, stdin closed during startup", () => {
  it("closed at once, before anything was sent: exit 0, the stop finished", async () => {
    const served = serve();
    const { code, signal, ms, stderr } = await closeStdin(served);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).toContain("stdin closed: stopped");
    expect(stderr).not.toContain("did not finish");
    expect(ms).toBeLessThan(3000);
    expect(running(served.marker)).toBe(false);
  }, 20_000);

  it("closed after the initialize, a backend still starting: exit 0 at once, the backend stopped", async () => {
    const served = serve();
    served.child.stdin!.write(`${JSON.stringify(INITIALIZE)}\n`);
    // The backend was started: its process is there, not yet answering (the handshake was answered without it).
    await until(() => running(served.marker), 10_000);
    const { code, signal, ms, stderr } = await closeStdin(served);
    // Well before the 10 s a call would wait, and the 4 s exit deadline.
    expect(ms).toBeLessThan(3000);
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stderr).not.toContain("did not finish");
    expect(running(served.marker)).toBe(false);
    // The transport, connected at once now, may see the end first: either way the stop finished.
    expect(stderr).toMatch(/(stdin|the transport) closed: stopped/);
  }, 30_000);
});
