/**
 * A backend's question to a 2026-07-28 client across two stateless replicas
 * sharing a real Redis: the call asks on replica A (`input_required` from
 * run_tool), the client's retry reaches replica B, which hands the answer to
 * A through the store and returns what came of it; a tampered state, one
 * from another token, one used twice and one past its lifetime are refused.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../helpers/harness.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";
import { envelope, postModern } from "../helpers/modern.js";
import { startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const SECOND_TOKEN = "second-token-0123456789abcdef";
const ENVELOPE = envelope({ elicitation: { form: {} } });
/** Short, so a late answer can be shown refused, yet long enough for the other tests' answers on a loaded machine. */
const QUESTION_TIMEOUT_MS = 3000;

let redis: RedisServer;
let a: HttpChild;
let b: HttpChild;

beforeAll(async () => {
  redis = await startRedis();
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { modern: servers.modern() },
      metatools: {
        code: { enabled: false },
        store: { url: redis.url },
        serve: { questionTimeoutMs: QUESTION_TIMEOUT_MS },
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
