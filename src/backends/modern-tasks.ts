/**
 * A tool call to a 2026-07-28 backend that takes tasks (its capabilities name
 * the `io.modelcontextprotocol/tasks` extension). metatools declares the
 * extension on these calls, so the backend may answer with a task instead of
 * holding the request open: metatools follows it (`tasks/get` at the
 * interval the backend asks), passes its status messages on as progress,
 * puts its questions to the calling client as any backend's question and
 * answers them (`tasks/update`), and answers the call with the task's
 * result. When the call is cancelled or its deadline passes, the task is
 * cancelled (`tasks/cancel`): the backend stops its work.
 *
 * These calls go through a raw channel beside the SDK client (its 2.x
 * release refuses a task answer), so the call's own questions as results
 * (`input_required`) are answered here too, as the SDK would: each to the
 * calling client, then the call is retried with the answers.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { CreateMessageRequest, ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { packageVersion } from "../util/version.js";
import type { CallingPeers } from "./peers.js";
import type { RawChannel } from "./raw-channel.js";
import type { CallOptions, ToolCallResult } from "./types.js";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How often a task is looked at, unless the backend says otherwise; the fastest it may ask for. */
const POLL_MS = 1000;
const MIN_POLL_MS = 100;
/** Rounds of questions one call may take before it is given up (the requests' own limits apply to each question). */
const MAX_ROUNDS = 20;

/** True when `client` speaks 2026-07-28 with a backend that takes tasks. */
export function takesTasks(client: Client): boolean {
  return client.getProtocolEra() === "modern" && client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION] !== undefined;
}

type Ask = CallingPeers["ask"];
type Result = Record<string, unknown>;

/** Who calls: the connected client, the channel beside it, what it declared, and where questions go. */
export interface ModernCaller {
  client: Client;
  channel: RawChannel;
  capabilities: Record<string, unknown>;
  ask: Ask;
}

export async function callModern(caller: ModernCaller, name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
  const { channel, ask } = caller;
  const deadline = Date.now() + options.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const meta = envelope(caller.client, caller.capabilities);
  let params: Result = { name, arguments: args, _meta: meta };
  for (let round = 0; ; round++) {
    const result = await channel.request("tools/call", params, { signal: options.signal, timeoutMs: left(), onProgress: options.onProgress });
    if (result.resultType === "task") return await follow(channel, meta, result, options, ask, left);
    if (result.resultType !== "input_required") return complete(result);
    if (round >= MAX_ROUNDS) throw new Error(`${name} asked more than ${MAX_ROUNDS} rounds of questions`);
    const inputResponses = await answerAll(result.inputRequests, ask, options.signal);
    params = { name, arguments: args, _meta: meta, inputResponses, ...(typeof result.requestState === "string" ? { requestState: result.requestState } : {}) };
  }
}

/** Follows the task the backend made of the call to its end. */
async function follow(channel: RawChannel, meta: Result, created: Result, options: CallOptions, ask: Ask, left: () => number): Promise<ToolCallResult> {
  const taskId = String(created.taskId);
  let every = interval(created.pollIntervalMs, POLL_MS);
  const answered = new Set<string>();
  let step = 0;
  let ended = false;
  try {
    for (;;) {
      await sleep(Math.min(every, left()), options.signal);
      const task = await channel.request("tasks/get", { taskId, _meta: meta }, { signal: options.signal, timeoutMs: left() });
      every = interval(task.pollIntervalMs, every);
      if (typeof task.statusMessage === "string") options.onProgress?.({ progress: ++step, message: task.statusMessage });
      if (task.status === "completed") {
        ended = true;
        return complete((task.result as Result | undefined) ?? {});
      }
      if (task.status === "failed" || task.status === "cancelled") {
        ended = true;
        const error = task.error as { message?: string } | undefined;
        throw new Error(task.status === "failed" ? `the backend's task failed: ${error?.message ?? "no reason given"}` : "the backend cancelled the task");
      }
      if (task.status !== "input_required") continue;
      const fresh = Object.fromEntries(Object.entries((task.inputRequests as Result | undefined) ?? {}).filter(([key]) => !answered.has(key)));
      if (Object.keys(fresh).length === 0) continue;
      const inputResponses = await answerAll(fresh, ask, options.signal);
      await channel.request("tasks/update", { taskId, inputResponses, _meta: meta }, { signal: options.signal, timeoutMs: left() });
      for (const key of Object.keys(inputResponses)) answered.add(key);
    }
  } catch (error) {
    // The caller went away or the deadline passed: the backend is told to stop the task's work.
    if (!ended) await channel.request("tasks/cancel", { taskId, _meta: meta }, { timeoutMs: 5000 }).catch(() => {});
    throw error;
  }
}

/** Each question to the calling client; a question it cannot be asked is declined (elicitation) or left unanswered. */
async function answerAll(requests: unknown, ask: Ask, signal: AbortSignal | undefined): Promise<Result> {
  const answers: Result = {};
  const live = signal ?? new AbortController().signal;
  for (const [key, request] of Object.entries((requests as Record<string, { method?: string; params?: unknown }> | undefined) ?? {})) {
    if (request?.method === "elicitation/create")
      answers[key] = await ask("elicitation", request.params as ElicitRequest["params"], live).catch(() => ({ action: "decline" }));
    else if (request?.method === "sampling/createMessage")
      await ask("sampling", request.params as CreateMessageRequest["params"], live).then(
        (answer) => (answers[key] = answer),
        () => {},
      );
    else if (request?.method === "roots/list") answers[key] = { roots: [] };
  }
  return answers;
}

/** The request envelope of 2026-07-28, declaring what the SDK client declared, and the tasks extension. */
function envelope(client: Client, declared: Result): Result {
  return {
    "io.modelcontextprotocol/protocolVersion": client.getNegotiatedProtocolVersion(),
    "io.modelcontextprotocol/clientInfo": { name: "metatools", version: packageVersion() },
    "io.modelcontextprotocol/clientCapabilities": { ...declared, extensions: { [TASKS_EXTENSION]: {} } },
  };
}

function complete(result: Result): ToolCallResult {
  const { resultType: _type, ...rest } = result;
  return { content: [], ...rest } as ToolCallResult;
}

function interval(asked: unknown, fallback: number): number {
  return typeof asked === "number" && Number.isFinite(asked) ? Math.max(MIN_POLL_MS, asked) : fallback;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason instanceof Error ? signal.reason : new Error("cancelled"));
    }
    if (signal?.aborted) return abort();
    signal?.addEventListener("abort", abort, { once: true });
  });
}
