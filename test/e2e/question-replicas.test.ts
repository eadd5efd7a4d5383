/**
 * A backend's question to a 2026-07-28 client across two stateless replicas
 * sharing a real Redis: the call asks on replica A (`input_required` from
 * run_tool), the client's retry reaches replica B, which hands the answer to
 * A through the store and returns what came of it; a tampered state, one
 * from another token, one used twice and one past its lifetime are refused.
 * A task made on A (a client that takes tasks, a call past
 * `serve.taskAfterMs`) is read, answered and cancelled through B; a task
 * whose replica was killed is reported failed, not "working" forever.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../helpers/harness.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { eventually } from "../helpers/eventually.js";
import { envelope, postModern } from "../helpers/modern.js";
import { startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const SECOND_TOKEN = "second-token-0123456789abcdef";
const ENVELOPE = envelope({ elicitation: { form: {} } });
/** Short, so a late answer can be shown refused, yet long enough for the other tests' answers on a loaded machine. */
const QUESTION_TIMEOUT_MS = 3000;

let redis: RedisServer;
let a: HttpChild;
let b: HttpChild;
let config: string;

beforeAll(async () => {
  redis = await startRedis();
  const dir = tempDir();
  config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { modern: servers.modern() },
      metatools: {
        code: { enabled: false },
        store: { url: redis.url },
        serve: { questionTimeoutMs: QUESTION_TIMEOUT_MS, taskAfterMs: 500 },
        http: { tokens: [SECOND_TOKEN] },
      },
    }),
  );
  [a, b] = await Promise.all([startHttp(["--config", config, "--stateless"]), startHttp(["--config", config, "--stateless"])]);
}, 60_000);

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await redis?.stop();
});

/** `tools/call run_tool` on `replica`, as a 2026-07-28 client. */
async function runTool(replica: HttpChild, params: Record<string, unknown>, token = TEST_TOKEN): Promise<Record<string, unknown>> {
  return (await postModern(replica.url, "tools/call", { name: "run_tool", ...params }, { token, meta: ENVELOPE })).body;
}

const ASK = { arguments: { tool_id: "modern:ask", args: { env: "prod" } } };
const ANSWER = { question: { action: "accept", content: { confirm: true } } };

/** Asks on replica `on`: the question and the state its retry sends back. */
async function ask(on: HttpChild): Promise<{ message: string; requestState: string }> {
  const reply = await runTool(on, ASK);
  const result = reply.result as { resultType: string; inputRequests: Record<string, { params: { message: string } }>; requestState: string };
  expect(result.resultType).toBe("input_required");
  return { message: result.inputRequests.question!.params.message, requestState: result.requestState };
}

const textOf = (reply: Record<string, unknown>): string => ((reply.result as { content: { text: string }[] }).content[0]!.text ?? "") as string;
const refusal = (reply: Record<string, unknown>): string => (reply.error as { message: string } | undefined)?.message ?? "";

describe("a 2026-07-28 client's answer on another replica", () => {
  it("asked on A and answered on B: B hands the answer to A and returns the result", async () => {
    const asked = await ask(a);
    expect(asked.message).toMatch(/^\[modern\] Deploy to prod\?/);
    const answered = await runTool(b, { ...ASK, inputResponses: ANSWER, requestState: asked.requestState });
    expect(textOf(answered)).toContain("deployed to prod");
  }, 30_000);

  it("refuses a tampered state, another token's, and one used twice", async () => {
    const asked = await ask(a);
    // One character inside the signature, changed: every bit of it counts (the last character's low bits are padding a decoder may ignore).
    const at = asked.requestState.length - 10;
    const tampered = asked.requestState.slice(0, at) + (asked.requestState[at] === "A" ? "B" : "A") + asked.requestState.slice(at + 1);
    expect(refusal(await runTool(b, { ...ASK, inputResponses: ANSWER, requestState: tampered }))).toMatch(/Invalid or expired requestState/);
    expect(refusal(await runTool(b, { ...ASK, inputResponses: ANSWER, requestState: asked.requestState }, SECOND_TOKEN))).toMatch(
      /Invalid or expired requestState/,
    );
    expect(textOf(await runTool(b, { ...ASK, inputResponses: ANSWER, requestState: asked.requestState }))).toContain("deployed to prod");
    expect(textOf(await runTool(a, { ...ASK, inputResponses: ANSWER, requestState: asked.requestState }))).toMatch(/is over .* run the tool again/);
  }, 30_000);

  it("refuses a state past the question's lifetime", async () => {
    const asked = await ask(a);
    // The state is signed, not sealed: it says when it expires, in whole seconds, checked by the second. Wait until the second after.
    const expires = (JSON.parse(Buffer.from(asked.requestState.split(".")[1]!, "base64url").toString("utf8")) as { exp: number }).exp * 1000;
    expect(expires).toBeLessThanOrEqual(Date.now() + QUESTION_TIMEOUT_MS + 1000);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expires - Date.now()) + 1050));
    const late = await runTool(b, { ...ASK, inputResponses: ANSWER, requestState: asked.requestState });
    expect(refusal(late)).toMatch(/Invalid or expired requestState/);
  }, 30_000);
});

describe("a 2026-07-28 client's task on another replica", () => {
  const TASK_ENVELOPE = envelope({ elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } });
  type Task = { taskId: string; status: string; resultType: string; inputRequests?: Record<string, { params: { message: string } }>; result?: unknown };

  /** Starts `tool` on `on` as a client that takes tasks; its task. */
  async function start(on: HttpChild, tool: string, args: Record<string, unknown>): Promise<Task> {
    const reply = await postModern(on.url, "tools/call", { name: "run_tool", arguments: { tool_id: tool, args } }, { meta: TASK_ENVELOPE });
    const task = reply.body.result as Task;
    expect(task).toMatchObject({ resultType: "task", status: "working" });
    return task;
  }

  /** `method` for the task `taskId` on `on`. */
  async function taskCall(on: HttpChild, method: string, taskId: string, extra: Record<string, unknown> = {}, token?: string) {
    return (await postModern(on.url, method, { taskId, ...extra }, { meta: TASK_ENVELOPE, headers: { "mcp-name": taskId }, token })).body;
  }

  const status = (on: HttpChild, taskId: string) => async () => (await taskCall(on, "tasks/get", taskId)).result as Task;
  const resultText = (task: Task) => (task.result as { content: { text: string }[] }).content[0]!.text;

  it("made on A, followed and finished through B", async () => {
    const task = await start(a, "modern:slow", { steps: 6, delayMs: 300 });
    expect((await status(b, task.taskId)()).status).toMatch(/working|completed/);
    const done = await eventually(status(b, task.taskId), (t) => t.status === "completed", 15_000);
    expect(resultText(done)).toContain("done 6");
  }, 30_000);

  it("asks on A, is answered through B's tasks/update, and the answer reaches the backend", async () => {
    const task = await start(a, "modern:ask", { env: "staging", delayMs: 1000 });
    const asking = await eventually(status(b, task.taskId), (t) => t.status === "input_required", 15_000);
    const [key, question] = Object.entries(asking.inputRequests ?? {})[0]!;
    expect(question.params.message).toMatch(/^\[modern\] Deploy to staging\?/);
    expect(await taskCall(b, "tasks/update", task.taskId, { inputResponses: { [key]: { action: "accept", content: { confirm: true } } } })).toMatchObject({
      result: { resultType: "complete" },
    });
    const done = await eventually(status(b, task.taskId), (t) => t.status === "completed", 15_000);
    expect(resultText(done)).toContain("deployed to staging");
  }, 30_000);

  it("cancelled through B (and not by another token)", async () => {
    const task = await start(a, "modern:slow", { steps: 200, delayMs: 100 });
    expect((await taskCall(b, "tasks/cancel", task.taskId, {}, SECOND_TOKEN)).error).toMatchObject({ code: -32602 });
    expect((await taskCall(b, "tasks/get", task.taskId, {}, SECOND_TOKEN)).error).toMatchObject({ code: -32602 });
    expect((await taskCall(b, "tasks/cancel", task.taskId)).result).toMatchObject({ resultType: "complete" });
    expect((await eventually(status(b, task.taskId), (t) => t.status === "cancelled", 10_000)).status).toBe("cancelled");
  }, 30_000);

  it("reported failed once the replica running it is killed", async () => {
    const c = await startHttp(["--config", config, "--stateless"]);
    const task = await start(c, "modern:slow", { steps: 400, delayMs: 100 });
    c.child.kill("SIGKILL");
    await c.stop();
    const failed = await eventually(status(b, task.taskId), (t) => t.status === "failed", 25_000);
    expect(failed).toMatchObject({ status: "failed", error: { message: expect.stringMatching(/stopped before it finished/) } });
  }, 40_000);
});
