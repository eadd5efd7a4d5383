/**
 * Long programs as tasks, for a 2026-07-28 client that takes them (the
 * public tasks extension's requester on the SDK v2 client), metatools over
 * Streamable HTTP with the modern fixture backend: a program still running
 * after `serve.taskAfterMs` becomes a task whose result the client reads;
 * cancelling the task stops the program and its call in flight (the backend
 * says its work was aborted), or one that spins, and the next program runs
 * on the server's one sandbox worker.
 */
import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../helpers/eventually.js";
import { startEraServer, type EraServer } from "../../helpers/modern.js";
import { connectTaskClient, type TaskClient } from "../../helpers/task-client.js";

const AFTER_MS = 800;

let era: EraServer;
let client: TaskClient;

beforeAll(async () => {
  era = await startEraServer({ settings: { serve: { taskAfterMs: AFTER_MS }, scripts: { cpuMs: 60_000, workers: 1 } } });
  client = await connectTaskClient({ url: era.server.url });
}, 30_000);

afterAll(async () => {
  await client?.close();
  await era?.server.stop();
});

type ToolResult = { content: { type: string; text?: string }[] };
const bodyOf = (result: unknown) => JSON.parse((result as ToolResult).content[0]!.text!) as Record<string, any>;
const program = (code: string) => client.session.callTool("run_tool", { tool_id: "metatools:run_program", args: { code } } as never);

describe("a long program, for a client that takes tasks", () => {
  it("becomes a task, and its value is the task's result", async () => {
    const execution = await program(`const said = await tools.call("modern:slow", { steps: 6, delayMs: 300 }); return { said };`);
    expect(execution.kind).toBe("task");
    const body = bodyOf(resultFromTaskOutcome((await execution.settle()).outcome));
    expect(JSON.stringify(body.structured.result)).toContain("done 6");
    expect(body.structured.program.trace).toEqual([expect.objectContaining({ call: "modern:slow", ok: true })]);
  }, 30_000);

  it("cancelled, stops the program and its call in flight; the next program runs", async () => {
    const before = era.abortedLines();
    const execution = await program(`await tools.call("modern:slow", { steps: 300, delayMs: 100 }); for (;;) {}`);
    expect(execution.kind).toBe("task");
    await execution.cancel();
    expect((await execution.settle()).outcome).toMatchObject({ status: "cancelled" });
    await eventually(era.abortedLines, (lines) => lines > before, 10_000);
    const next = await program("return 'after';");
    expect(bodyOf(resultFromTaskOutcome((await next.settle()).outcome)).structured.result).toBe("after");
  }, 30_000);

  it("cancelled while it spins, stops it too", async () => {
    const execution = await program("for (;;) {}");
    expect(execution.kind).toBe("task");
    await execution.cancel();
    expect((await execution.settle()).outcome).toMatchObject({ status: "cancelled" });
    const next = await program("return 'after the spin';");
    expect(bodyOf(resultFromTaskOutcome((await next.settle()).outcome)).structured.result).toBe("after the spin");
  }, 30_000);
});
