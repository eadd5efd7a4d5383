/**
 * Children die with the server. The backend here is started through a shell
 * (as `npx` or a script starts the real server), ignores stdin closing and
 * SIGTERM, and starts a grandchild that does the same and holds none of the
 * server's pipes. However `metatools serve` ends (SIGKILL included, which
 * gives it no chance to clean up), none of the three is left; a grandchild
 * left by a backend that exits on its own is stopped while the server runs.
 * POSIX only: process groups (see docs/deploy.md for other platforms).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { CLI } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/harness.js";
import { startHttp } from "../../helpers/serve.js";

const fixture = fileURLToPath(new URL("../../fixtures/orphan-tree.mjs", import.meta.url));
/** The pid files of this file's tests: every process they name is killed after each test, so a failing run leaves nothing either. */
const pidFiles = new Set<string>();

afterEach(() => {
  for (const file of pidFiles) {
    const pids = existsSync(file) ? readFileSync(file, "utf8").split(/\s+/).filter(Boolean).map(Number) : [];
    for (const pid of pids) kill(pid, "SIGKILL");
  }
  pidFiles.clear();
});

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone
  }
}

/** Running: it exists and is not a zombie waiting for a parent to collect it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 50))) if (check()) return true;
  return check();
}

/** A config whose one backend is the fixture under `sh -c`; `exitSoon` makes the fixture exit on its own, leaving its grandchild. */
function configFor(exitSoon = false): { dir: string; config: string; pidFile: string } {
  const dir = tempDir();
  const pidFile = join(dir, "pids");
  pidFiles.add(pidFile);
  const config = join(dir, "metatools.json");
  // `; exit $?` keeps the shell alive as the fixture's parent, a third process of the backend's.
  const script = `"${process.execPath}" "${fixture}"; exit $?`;
  const env = { PID_FILE: pidFile, ...(exitSoon ? { TREE_EXIT: "1" } : {}) };
  writeFileSync(config, JSON.stringify({ mcpServers: { tree: { command: "/bin/sh", args: ["-c", script], env } }, metatools: { code: { enabled: false } } }));
  return { dir, config, pidFile };
}

/** The pids of the backend's `nth` start (shell, fixture, grandchild), once it is up. */
async function backendPids(pidFile: string, nth = 0): Promise<number[]> {
  const line = () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n")[nth] : undefined);
  expect(await until(() => /^\d+ \d+ \d+$/.test(line() ?? ""), 20_000)).toBe(true);
  const pids = line()!.split(" ").map(Number);
  expect(pids.every(alive)).toBe(true);
  return pids;
}

function serveStdio(config: string, dir: string): { child: ChildProcess; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [CLI, "serve", "--config", config, "--root", dir], { stdio: ["pipe", "ignore", "ignore"] });
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
  };
  child.stdin!.write(`${JSON.stringify(initialize)}\n`);
  return { child, exited };
}

describe.skipIf(process.platform === "win32")("children die with the server", () => {
  it("SIGKILL of a stdio server leaves no process of its backend's", async () => {
    const { dir, config, pidFile } = configFor();
    const { child, exited } = serveStdio(config, dir);
    const pids = await backendPids(pidFile);
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(await until(() => !pids.some(alive), 10_000), `left running: ${pids.filter(alive).join(", ")}`).toBe(true);
    // Asked first, then made to: the fixture (not the group's leader) was sent SIGTERM before the SIGKILL that ended it.
    expect(readFileSync(`${pidFile}.events`, "utf8")).toContain("SIGTERM");
  }, 40_000);

  it("SIGKILL of an HTTP server leaves no process of its backend's", async () => {
    const { config, pidFile } = configFor();
    const server = await startHttp(["--config", config]);
    const pids = await backendPids(pidFile);
    const exited = new Promise((resolve) => server.child.once("exit", (_code, signal) => resolve(signal)));
    server.child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    expect(await until(() => !pids.some(alive), 10_000), `left running: ${pids.filter(alive).join(", ")}`).toBe(true);
  }, 40_000);

  it("SIGTERM still closes backends in order, within 5 s, and leaves none of their processes", async () => {
    const { dir, config, pidFile } = configFor();
    const { child, exited } = serveStdio(config, dir);
    const pids = await backendPids(pidFile);
    // Connected, not only started: a backend still in its handshake is stopped without waiting for it (mcp.ts).
    expect(await until(() => existsSync(`${pidFile}.ready`), 20_000)).toBe(true);
    const started = performance.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(await until(() => !pids.some(alive), 3000), `left running: ${pids.filter(alive).join(", ")}`).toBe(true);
    // The MCP way, in order: stdin closed first, then SIGTERM to the whole group (the fixture is not its leader).
    expect(readFileSync(`${pidFile}.events`, "utf8")).toMatch(/^eof\nSIGTERM\n/);
  }, 40_000);

  it("a grandchild left by a backend that exits on its own is stopped while the server runs", async () => {
    const { dir, config, pidFile } = configFor(true);
    const { child, exited } = serveStdio(config, dir);
    const [shell, own, grandchild] = await backendPids(pidFile);
    expect(await until(() => !alive(own!) && !alive(shell!), 5000)).toBe(true);
    expect(await until(() => !alive(grandchild!), 5000), "the grandchild is still running").toBe(true);
    expect(child.exitCode).toBe(null);
    // The backend is started again (and exits again): each start's grandchild goes the same way.
    const again = await backendPids(pidFile, 1);
    expect(await until(() => !again.some(alive), 8000)).toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 60_000);
});
