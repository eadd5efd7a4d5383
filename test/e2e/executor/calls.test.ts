/**
 * What passes between the client and the backend during a call: output
 * validation against the tool's output schema (warn and strict), progress
 * notifications, and cancellation.
 */
import { join } from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedCalls, openSession, servers, tempDir, type Session } from "../../helpers/harness.js";

let session: Session;
let callLog: string;

beforeAll(async () => {
  callLog = join(tempDir(), "calls.log");
  session = await openSession({ mcpServers: { kv: servers.exec(callLog) } });
});
afterAll(() => session?.close());

describe("output validation", () => {
  it("passes a result that matches the output schema without comment", async () => {
    const body = await session.call("run_tool", { tool_id: "kv:typed", args: { mode: "good" } });
    expect(body).toMatchObject({ ok: true, structured: { celsius: 21.5, station: "north" } });
    expect(body.warning).toBeUndefined();
  });

  it("warns by default when structured content breaks the schema, naming the field", async () => {
    const body = await session.call("run_tool", { tool_id: "kv:typed", args: { mode: "bad" } });
    expect(body).toMatchObject({ ok: true, structured: { celsius: "warm" } });
    expect(body.warning).toMatch(/structuredContent\.celsius: expected type number/);
    const missing = await session.call("run_tool", { tool_id: "kv:typed", args: { mode: "none" } });
    expect(missing.warning).toMatch(/returned none/);
  });

  it("in strict mode withholds the result and returns invalid_output with the problems", async () => {
    const log = join(tempDir(), "calls.log");
    const strict = await openSession({ mcpServers: { kv: servers.exec(log) }, metatools: { run: { outputValidation: "strict" } } });
    try {
      const { text, isError } = await strict.raw("run_tool", { tool_id: "kv:typed", args: { mode: "bad" } });
      expect(isError).toBe(false);
      const body = JSON.parse(text);
      expect(body).toMatchObject({
        ok: false,
        error: { code: "invalid_output" },
        problems: [{ field: "structuredContent.celsius", expected: "type number", got: "warm" }],
      });
      expect(body.structured).toBeUndefined();
      expect(body.warning).toMatch(/outputValidation/);
      expect(await strict.call("run_tool", { tool_id: "kv:typed", args: { mode: "good" } })).toMatchObject({ ok: true });
      // Not cached: the next identical call reaches the backend again.
      await strict.call("run_tool", { tool_id: "kv:typed", args: { mode: "bad" } });
      expect(loggedCalls(log)).toEqual(["typed", "typed", "typed"]);
    } finally {
      await strict.close();
    }
  });
});

describe("progress and cancellation", () => {
  it("passes the backend's progress notifications to the client that asked for them", async () => {
    const updates: { progress: number; total?: number; message?: string }[] = [];
    const result = await session.client.callTool(
      { name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 3, step_ms: 20 }, cache: "bypass" } },
      CallToolResultSchema,
      { onprogress: (p) => updates.push(p) },
    );
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toMatchObject({ ok: true, result: "done after 3 steps" });
    expect(updates).toEqual([
      { progress: 1, total: 3, message: "step 1" },
      { progress: 2, total: 3, message: "step 2" },
      { progress: 3, total: 3, message: "step 3" },
    ]);
  });

  it("cancels the backend's call when the client cancels", async () => {
    const abort = new AbortController();
    const pending = session.client.callTool(
      { name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 100, step_ms: 30 }, cache: "bypass" } },
      CallToolResultSchema,
      { signal: abort.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 150));
    abort.abort("the user changed their mind");
    await expect(pending).rejects.toThrow();
    const deadline = Date.now() + 3000;
    while (!loggedCalls(callLog).includes("slow:cancelled") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 30));
    expect(loggedCalls(callLog)).toContain("slow:cancelled");
    // The server is still serving.
    expect(await session.call("run_tool", { tool_id: "kv:lookup", args: { key: "after" } })).toMatchObject({ ok: true });
  });

  it("cancels the backend's call when it times out, not just the wait for it", async () => {
    const before = loggedCalls(callLog).filter((c) => c === "slow:cancelled").length;
    const timedOut = await session.call("run_tool", { tool_id: "kv:slow", args: { steps: 100, step_ms: 30 }, cache: "bypass", timeout_ms: 200 });
    expect(timedOut.error.code).toBe("timeout");
    const deadline = Date.now() + 3000;
    const cancelled = () => loggedCalls(callLog).filter((c) => c === "slow:cancelled").length;
    while (cancelled() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 30));
    // The backend saw notifications/cancelled and stopped its work.
    expect(cancelled()).toBe(before + 1);
  });
});
