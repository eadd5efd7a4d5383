/**
 * Tasks toward 2026-07-28 clients (the `io.modelcontextprotocol/tasks`
 * extension), through real processes: metatools served over stdio and over
 * Streamable HTTP, a client driven by the public requester of the extension
 * (@modelcontextprotocol/ext-tasks) on the SDK v2 client, the modern fixture
 * backend and the public everything server. A quick call answers at once; a
 * call still running after `serve.taskAfterMs` becomes a task whose result
 * the client reads with `tasks/get`; a question asked after that goes to the
 * client as the task's input and its answer (`tasks/update`) reaches the
 * backend; a 2025 backend's task-only tool, and a 2026-07-28 backend's
 * task (which asks halfway), become the client's task; a cancelled task
 * stops the backend's work, its task included (the backend says so).
 */
import { existsSync, readFileSync } from "node:fs";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { resultFromTaskOutcome, type ApplicationInputRequest } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.js";
import { envelope, httpServe, MODERN, postModern, startEraServer } from "../helpers/modern.js";
import type { HttpChild } from "../helpers/serve.js";
import { connectTaskClient, type TaskClient } from "../helpers/task-client.js";

const SECOND_TOKEN = "second-token-0123456789abcdef";
const TASKS = { "io.modelcontextprotocol/tasks": {} };
const AFTER_MS = 800;

let server: HttpChild;
let config: string;
let aborted: string;
let abortedLines: () => number;

beforeAll(async () => {
  ({ server, config, aborted, abortedLines } = await startEraServer({ settings: { serve: { taskAfterMs: AFTER_MS }, http: { tokens: [SECOND_TOKEN] } } }));
}, 30_000);

afterAll(() => server?.stop());

type ToolResult = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (result: unknown) => (result as ToolResult).content.map((c) => c.text ?? "").join("\n");

describe.each(["http", "stdio"] as const)("a client that takes tasks, metatools over %s", (served) => {
  let client: TaskClient;
  const asked: ApplicationInputRequest[] = [];

  beforeAll(async () => {
    client = await connectTaskClient(served === "http" ? { url: server.url } : { config }, {
      onInputRequest: (async (request: ApplicationInputRequest) => {
        asked.push(request);
        const message = String((request.params as { message?: string } | undefined)?.message);
        return { action: "accept", content: /Publish/.test(message) ? { publish: true } : { confirm: true } };
      }) as never,
    });
  }, 30_000);
  afterAll(() => client?.close());

  const run = (tool_id: string, args: Record<string, unknown>) => client.session.callTool("run_tool", { tool_id, args } as never);

  it("is told metatools makes tasks, and gets a quick call's result at once", async () => {
    expect(client.client.getServerCapabilities()?.extensions).toEqual(expect.objectContaining(TASKS));
    const execution = await run("modern:echo", { text: `quick, ${served}` });
    expect(execution.kind).toBe("immediate");
    expect(textOf(resultFromTaskOutcome((await execution.settle()).outcome))).toContain(`echo:quick, ${served}`);
  });

  it("gets a call that runs past taskAfterMs as a task, and its result through tasks/get", async () => {
    const execution = await run("modern:slow", { steps: 8, delayMs: 300 });
    expect(execution.kind).toBe("task");
    const statuses: string[] = [];
    const { outcome } = await execution.settle({ onEvent: (event) => void statuses.push(JSON.stringify(event)) });
    expect(textOf(resultFromTaskOutcome(outcome))).toContain("done 8");
    // Progress reached the task's status message on the way.
    expect(statuses.join("\n")).toMatch(/\d\/8: step \d/);
  }, 30_000);

  it("answers a question the backend asks once the call is a task, and the answer reaches the backend", async () => {
    const before = asked.length;
    const execution = await run("modern:ask", { env: `prod-${served}`, delayMs: AFTER_MS * 2 });
    expect(execution.kind).toBe("task");
    const result = resultFromTaskOutcome((await execution.settle()).outcome);
    expect(textOf(result)).toContain(`deployed to prod-${served}`);
    expect(asked.slice(before)).toHaveLength(1);
    expect(asked[before]).toMatchObject({
      kind: "elicitation",
      params: { message: expect.stringMatching(new RegExp(`^\\[modern\\] Deploy to prod-${served}\\?`)) },
    });
  }, 30_000);

  it("gets a 2025 backend's task-only tool as its own task", async () => {
    const execution = await run("everything:simulate-research-query", { topic: `tides, ${served}` });
    expect(execution.kind).toBe("task");
    expect(textOf(resultFromTaskOutcome((await execution.settle()).outcome))).toContain(`Research Report: tides, ${served}`);
  }, 40_000);

  it("gets a 2026-07-28 backend's task, which asks halfway, as its own task; the answer reaches the backend's task", async () => {
    const before = asked.length;
    const execution = await run("modern:report", { topic: `tides-${served}`, steps: 6, delayMs: 300, confirm: true });
    expect(execution.kind).toBe("task");
    expect(textOf(resultFromTaskOutcome((await execution.settle()).outcome))).toContain(`report on tides-${served} (as a task)`);
    expect(asked.slice(before).map((r) => (r.params as { message: string }).message)).toEqual([`[modern] Publish the report on tides-${served}?`]);
  }, 30_000);

  it("cancels a task that follows a backend's task, and the backend's task is cancelled", async () => {
    const before = abortedLines();
    const execution = await run("modern:report", { topic: "long", steps: 300, delayMs: 100 });
    expect(execution.kind).toBe("task");
    await execution.cancel();
    expect((await execution.settle()).outcome).toMatchObject({ status: "cancelled" });
    await eventually(
      () => (existsSync(aborted) ? readFileSync(aborted, "utf8") : ""),
      (text) => /aborted task/.test(text) && abortedLines() > before,
      10_000,
    );
  }, 30_000);

  it("cancels a task, and the backend's work stops", async () => {
    const before = abortedLines();
    const execution = await run("modern:slow", { steps: 200, delayMs: 100 });
    expect(execution.kind).toBe("task");
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: "cancelled" });
    await eventually(abortedLines, (lines) => lines > before, 10_000);
  }, 30_000);
});

describe("tasks on the wire (HTTP)", () => {
  const withTasks = envelope({ extensions: TASKS });

  it("server/discover names the extension", async () => {
    const { body } = await postModern(server.url, "server/discover", {});
    const result = body.result as { capabilities: { extensions?: Record<string, unknown> } };
    expect(result.capabilities.extensions).toEqual(expect.objectContaining(TASKS));
  });

  it("a task is another caller's unknown task, and unknown ids are refused with invalid params", async () => {
    const created = await postModern(
      server.url,
      "tools/call",
      { name: "run_tool", arguments: { tool_id: "modern:slow", args: { steps: 6, delayMs: 300 } } },
      { meta: withTasks },
    );
    const task = created.body.result as { resultType: string; taskId: string; status: string; pollIntervalMs: number; ttlMs: number };
    expect(task).toMatchObject({ resultType: "task", status: "working" });
    expect(task.pollIntervalMs).toBeGreaterThan(0);
    const mine = await postModern(server.url, "tasks/get", { taskId: task.taskId }, { meta: withTasks, headers: { "mcp-name": task.taskId } });
    expect(mine.body.result).toMatchObject({ taskId: task.taskId, resultType: "complete" });
    const theirs = await postModern(
      server.url,
      "tasks/get",
      { taskId: task.taskId },
      { token: SECOND_TOKEN, meta: withTasks, headers: { "mcp-name": task.taskId } },
    );
    expect(theirs.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("unknown task") });
    const cancel = await postModern(
      server.url,
      "tasks/cancel",
      { taskId: task.taskId },
      { token: SECOND_TOKEN, meta: withTasks, headers: { "mcp-name": task.taskId } },
    );
    expect(cancel.body.error).toMatchObject({ code: -32602 });
    // The other caller's cancel did nothing: the task finishes.
    await eventually(
      async () => (await postModern(server.url, "tasks/get", { taskId: task.taskId }, { meta: withTasks, headers: { "mcp-name": task.taskId } })).body.result,
      (result) => (result as { status: string }).status === "completed",
      15_000,
    );
  }, 30_000);

  it("a client that did not declare the extension waits for the plain result", async () => {
    const client = new ClientV2({ name: "no-tasks", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(httpServe(server.url));
    try {
      const result = await client.callTool({ name: "run_tool", arguments: { tool_id: "modern:slow", args: { steps: 5, delayMs: 300 } } });
      expect(textOf(result)).toContain("done 5");
    } finally {
      await client.close();
    }
  }, 30_000);
});
