/**
 * Backends that fail in every way a process can, through a real MCP client:
 * killed with SIGKILL mid-call, never answering, exiting at start, writing
 * garbage to stdout, answering 50 MB. The server stays up, every call gets a
 * clear answer within its timeout, healthy backends keep serving, and a
 * killed backend comes back.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startHttpBackend } from "../fixtures/http-backend.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

const fixture = fileURLToPath(new URL("../fixtures/faulty-server.mjs", import.meta.url));
const faulty = (fault = "") => ({ command: process.execPath, args: [fixture], env: { FAULT: fault } });
let session: Session;

beforeAll(async () => {
  session = await openSession({
    mcpServers: { ok: servers.everything(), victim: faulty(), dead: faulty("exit"), noisy: faulty("garbage") },
    metatools: { code: { enabled: false }, timeouts: { callMs: 2000 } },
  });
}, 30_000);

afterAll(() => session?.close());

/** Polls until the victim answers again (after a reconnect), at most 10 s. */
async function untilBack(): Promise<Record<string, any>> {
  let back: Record<string, any> = {};
  for (let i = 0; i < 100 && back.ok !== true; i++) {
    back = await run("victim:echo", { text: "back" });
    if (back.ok !== true) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return back;
}

const run = (tool_id: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => session.call("run_tool", { tool_id, args, ...extra });

describe("faulty backends", () => {
  it("a backend that exits at start is reported with its stderr; the others serve", async () => {
    const search = await session.call("search_tools", { query: "echo" });
    const dead = search.unavailable.find((u: { namespace: string }) => u.namespace === "dead");
    expect(dead.error ?? dead.reason ?? JSON.stringify(dead)).toContain("refusing to start");
    expect((await run("ok:echo", { message: "still here" })).result).toContain("still here");
  });

  it("a backend that writes garbage to stdout still answers", async () => {
    expect((await run("noisy:echo", { text: "through the noise" })).result).toBe("echo: through the noise");
  });

  it("a call that never answers times out, clearly, and the backend keeps serving", async () => {
    const started = Date.now();
    const hung = await run("victim:hang", {}, { timeout_ms: 500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hung.ok).toBe(false);
    expect(hung.error.code).toBe("timeout");
    expect((await run("victim:echo", { text: "after" })).result).toBe("echo: after");
  });

  it("a 50 MB answer does not take the server down, and gets a clear answer", async () => {
    // Writing and refusing 50 MB takes seconds on a loaded machine: the call gets time, so the answer is the refusal, not a timeout.
    const big = await run("victim:big", { mb: 50 }, { timeout_ms: 20_000 });
    expect(JSON.stringify(big).length).toBeLessThan(20_000);
    // The SDK's stdio reader refuses a message over 10 MiB and drops the connection: the call says why, naming the backend.
    expect(big.ok).toBe(false);
    expect(big.error.message).toMatch(/^victim closed the connection: its answer was larger than 10 MiB/);
    expect((await run("ok:echo", { message: "alive" })).result).toContain("alive");
    expect(await untilBack()).toMatchObject({ ok: true });
  }, 60_000);

  it("kill -9 mid-call: the call fails fast naming the backend, and the backend comes back", async () => {
    const pidCall = await run("victim:pid");
    const pid = Number(pidCall.result);
    expect(pidCall, JSON.stringify(pidCall)).toMatchObject({ ok: true });
    const inFlight = run("victim:hang", {}, { timeout_ms: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    process.kill(pid, "SIGKILL");
    const failed = await inFlight;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(failed.ok).toBe(false);
    expect(JSON.stringify(failed.error)).toContain("victim");
    expect(await untilBack()).toMatchObject({ ok: true, result: "echo: back" });
    expect(Number((await run("victim:pid")).result)).not.toBe(pid);
  }, 30_000);

  it("a backend that keeps failing opens its circuit, says when it retries, and closes it once it starts", async () => {
    const dir = tempDir();
    const faultFile = join(dir, "fault");
    writeFileSync(faultFile, "exit");
    const flaky = await openSession(
      { mcpServers: { flaky: { command: process.execPath, args: [fixture], env: { FAULT_FILE: faultFile } } }, metatools: { code: { enabled: false } } },
      { breakerMs: 1500 },
    );
    try {
      // The harness retries after 200 and 400 ms; the third failure opens the circuit.
      let state = flaky.app.backends.state("flaky")!;
      for (let i = 0; i < 50 && !state.error?.includes("circuit open"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = flaky.app.backends.state("flaky")!;
      }
      expect(state.status).toBe("failed");
      expect(state.error).toMatch(/refusing to start.*circuit open after 2 failed attempts: next try at /);
      expect(Date.parse(state.retryAt!)).toBeGreaterThan(Date.now());
      const search = await flaky.call("search_tools", { query: "echo" });
      expect(search.unavailable[0]).toMatchObject({ namespace: "flaky", status: "failed", retry_at: state.retryAt });
      // It recovers: the next try finds it working.
      writeFileSync(faultFile, "");
      let echo: Record<string, any> = {};
      for (let i = 0; i < 60 && echo.ok !== true; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        echo = await flaky.call("run_tool", { tool_id: "flaky:echo", args: { text: "recovered" } });
      }
      expect(echo).toMatchObject({ ok: true, result: "echo: recovered" });
      expect(flaky.app.backends.state("flaky")).toMatchObject({ status: "ready", retryAt: undefined });
    } finally {
      await flaky.close();
    }
  }, 30_000);

  it("an HTTP backend's 50 MB answer is cut while it is read, with a clear error, and the backend keeps serving", async () => {
    const http = await startHttpBackend({
      tools: (server) =>
        server.registerTool("huge", { description: "Answers `mb` megabytes.", inputSchema: { mb: z.number() } }, async ({ mb }) => ({
          content: [{ type: "text", text: "x".repeat(mb * 2 ** 20) }],
        })),
    });
    const remote = await openSession({ mcpServers: { remote: { type: "http", url: http.url } }, metatools: { code: { enabled: false } } });
    try {
      const huge = await remote.call("run_tool", { tool_id: "remote:huge", args: { mb: 50 } });
      expect(huge.ok).toBe(false);
      expect(huge.error.message).toContain("the answer was larger than 10 MiB");
      expect(JSON.stringify(huge).length).toBeLessThan(20_000);
      let after: Record<string, any> = {};
      for (let i = 0; i < 50 && after.ok !== true; i++) {
        after = await remote.call("run_tool", { tool_id: "remote:weather_forecast", args: { city: "Oslo" } });
        if (after.ok !== true) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(after).toMatchObject({ ok: true });
    } finally {
      await remote.close();
      await http.close();
    }
  }, 60_000);
});
