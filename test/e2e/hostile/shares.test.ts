/**
 * Every caller's share is its own, counted per token: through `metatools
 * serve --http` with several tokens, raw 2026-07-28 requests of clients
 * that take tasks, the media and modern fixture backends, in memory and on
 * a real Redis shared by two replicas. One token's many tasks with large
 * results forget its own oldest, never another token's task; one token's
 * calls in flight and questions waiting stop at its share while another
 * token's first is served.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../src/config/defaults.js";
import { eventually } from "../../helpers/eventually.js";
import { servers, tempDir } from "../../helpers/harness.js";
import { envelope, postModern } from "../../helpers/modern.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../../helpers/serve.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";

const MEDIA = fileURLToPath(new URL("../../fixtures/media-server.mjs", import.meta.url));
const B = "token-b-0123456789abcdef";
const C = "token-c-careful-0123456789";
const D = "token-d-careful-0123456789";
/** A client that takes tasks and can be asked. */
const TASK_CLIENT = envelope({ extensions: { "io.modelcontextprotocol/tasks": {} }, elicitation: {} });
type Body = Record<string, any>;

async function serve(storeUrl?: string, http: Record<string, unknown> = {}): Promise<HttpChild> {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { media: { command: process.execPath, args: [MEDIA] }, modern: servers.modern() },
      metatools: {
        code: { enabled: false },
        // Every call of a client that takes tasks becomes one at once.
        serve: { taskAfterMs: 0 },
        profiles: { careful: { approvals: { destructive: "ask", remember: "never" } }, p1: {}, p2: {} },
        http: { tokens: [B, { token: C, profile: "careful" }, { token: D, profile: "careful" }], ...http },
        ...(storeUrl ? { store: { url: storeUrl } } : {}),
      },
    }),
  );
  return startHttp(["--config", config]);
}

/** run_tool as a client that takes tasks: its answer (a task, a question, or the reply). */
async function run(server: HttpChild, token: string, tool_id: string, args: Record<string, unknown>): Promise<Body> {
  const { body } = await postModern(server.url, "tools/call", { name: "run_tool", arguments: { tool_id, args } }, { token, meta: TASK_CLIENT });
  expect(body.error, JSON.stringify(body.error)).toBeUndefined();
  return body.result as Body;
}

async function taskGet(server: HttpChild, token: string, taskId: string): Promise<Body> {
  return (await postModern(server.url, "tasks/get", { taskId }, { token, meta: TASK_CLIENT, headers: { "mcp-name": taskId } })).body;
}

/** What came of a run_tool call: waited through its task until it ends or asks; the reply's JSON when there is one. */
async function settle(server: HttpChild, token: string, answer: Body): Promise<{ status: string; reply?: Body }> {
  let shown = answer;
  if (answer.resultType === "task")
    shown = (await eventually(
      () => taskGet(server, token, answer.taskId),
      (got) => ["completed", "failed", "cancelled", "input_required"].includes(got.result?.status),
    ))!.result;
  if (shown.resultType === "input_required" || shown.status === "input_required") return { status: "input_required" };
  const result = shown.result ?? shown;
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === "text")?.text;
  return { status: shown.status ?? "complete", ...(text ? { reply: JSON.parse(text) } : {}) };
}

describe.each(["memory", "redis"] as const)("task records, each caller in its own share (%s store)", (store) => {
  let redis: RedisServer | undefined;
  let first: HttpChild;
  let second: HttpChild;

  beforeAll(async () => {
    redis = store === "redis" ? await startRedis() : undefined;
    first = await serve(redis?.url);
    // On Redis a second replica shares the store; in memory the one server serves both.
    second = redis ? await serve(redis.url) : first;
  }, 60_000);
  afterAll(async () => {
    await first?.stop();
    if (second !== first) await second?.stop();
    await redis?.stop();
  });

  it("B's task is readable after A's 60 tasks of 1 MB images; A's own oldest were forgotten, and tasks/get says so", async () => {
    const mine = await run(first, B, "modern:slow", { steps: 1, delayMs: 100 });
    expect(mine.resultType).toBe("task");
    expect((await settle(first, B, mine)).status).toBe("completed");
    const tasks: string[] = [];
    // One after another, each to its end: what is bounded here is what A keeps, not what it runs at once.
    for (let i = 0; i < 60; i++) {
      const server = i % 2 ? second : first;
      const answer = await run(server, TEST_TOKEN, "media:image", { bytes: 1_000_000 });
      if (answer.resultType !== "task") continue;
      tasks.push(answer.taskId);
      expect((await settle(server, TEST_TOKEN, answer)).status).toBe("completed");
    }
    expect(tasks.length).toBeGreaterThan(40);
    // Another caller's task, past all of that: whole, from either replica.
    for (const server of [first, second]) {
      const read = await taskGet(server, B, mine.taskId);
      expect(read.result?.status, JSON.stringify(read).slice(0, 300)).toBe("completed");
      expect(JSON.stringify(read.result.result)).toContain("done 1");
    }
    // A's share holds its latest tasks; its first was forgotten for them.
    const oldest = await taskGet(first, TEST_TOKEN, tasks[0]!);
    expect(oldest.error?.message).toMatch(/was forgotten to make room for your later tasks \(each caller keeps at most metatools\.serve\.taskBytesPerCaller/);
    const latest = await taskGet(second, TEST_TOKEN, tasks.at(-1)!);
    expect(latest.result?.status).toBe("completed");
    expect(JSON.stringify(latest.result.result)).toContain('"type":"image"');
  }, 120_000);

  it(`a call of A's past its ${DEFAULTS.serve.callsPerCaller} in flight, and a question of C's past its ${DEFAULTS.serve.questionsPerCaller} waiting, are refused while B's and D's first are served`, async () => {
    const calls = DEFAULTS.serve.callsPerCaller;
    // Tasks that run for ten minutes: each holds a call of A's share, half on each replica.
    for (let i = 0; i < calls; i++)
      expect((await run(i % 2 ? second : first, TEST_TOKEN, "modern:slow", { steps: 1, delayMs: 600_000 })).resultType).toBe("task");
    const refused = await settle(first, TEST_TOKEN, await run(first, TEST_TOKEN, "modern:slow", { steps: 1, delayMs: 10 }));
    expect(refused.reply).toMatchObject({ ok: false, error: { code: "too_many_calls" } });
    expect(refused.reply!.error.message).toContain("metatools.serve.callsPerCaller");
    expect((await settle(second, B, await run(second, B, "modern:echo", { text: "mine" }))).reply).toMatchObject({ ok: true, result: "echo:mine" });

    // C's profile asks before anything destructive: each call waits with a question for C.
    const questions = DEFAULTS.serve.questionsPerCaller;
    for (let i = 0; i < questions; i++)
      expect((await settle(first, C, await run(i % 2 ? second : first, C, "modern:slow", { steps: 1, delayMs: 10 }))).status).toBe("input_required");
    const unasked = await settle(first, C, await run(first, C, "modern:slow", { steps: 1, delayMs: 10 }));
    expect(unasked.reply).toMatchObject({ ok: false, error: { code: "too_many_questions" } });
    expect(unasked.reply!.error.message).toContain("metatools.serve.questionsPerCaller");
    expect((await settle(second, D, await run(second, D, "modern:slow", { steps: 1, delayMs: 10 }))).status).toBe("input_required");
  }, 120_000);
});

describe("sessions, each token's share under every path", () => {
  let server: HttpChild;
  beforeAll(async () => void (server = await serve(undefined, { maxSessionsPerToken: 2 })), 60_000);
  afterAll(() => server?.stop());

  it("a token's sessions on /mcp, /mcp/p1 and /mcp/p2 count as the one token's: its third is refused, another token's first opens", async () => {
    const open = async (token: string, path: string) => {
      const client = new Client({ name: "sessions-test", version: "1" });
      await client.connect(httpClientTransport(server.url + path, token));
      return client;
    };
    const mine = [await open(TEST_TOKEN, ""), await open(TEST_TOKEN, "/p1")];
    await expect(open(TEST_TOKEN, "/p2")).rejects.toThrow(/this token has 2 open sessions, its limit \(metatools\.http\.maxSessionsPerToken\)/);
    const other = await open(B, "/p2");
    await Promise.all([...mine, other].map((client) => client.close()));
  });
});
