/**
 * `tools/call` for the served tools, in either era. A 2025 client is asked a
 * backend's question by a request pushed on its call (its response stream
 * over HTTP); a 2026-07-28 client, which cannot be sent one, gets the
 * question as an `input_required` result and answers in its retry
 * (questions.ts); one that takes tasks gets a call that runs long as a task
 * (tasks.ts).
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitRequestFormParams,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ClientPeer } from "../model/peer.js";
import type { ServedTool, ServerDefinition } from "./definition.js";
import { answerOf, ParkedCall, type Step } from "./parked-call.js";
import { QUESTION_KEY, questionRequest, type ParkedState, type QuestionRelay } from "./questions.js";
import { TASKS_EXTENSION, type TaskBoard, type TaskCaller } from "./tasks.js";

/** How long a person or a model may take to answer a backend's question (the call's own timeout still applies). */
export const INTERACTION_TIMEOUT_MS = 10 * 60_000;

type Progress = (update: { progress: number; total?: number; message?: string }) => void;

export interface CallContext {
  server: Server;
  definition: ServerDefinition;
  /** This session's id (2025 sessions); undefined for a server of one request. */
  session: string | undefined;
  /** Where 2026-07-28 clients' questions wait, and the codec of their state; undefined: such clients are told they cannot be asked. */
  relay?: { questions: QuestionRelay; codec: ReturnType<QuestionRelay["codec"]> };
  /** Where long calls of 2026-07-28 clients that take tasks become tasks; undefined: they answer when done. */
  tasks?: TaskBoard;
  /** Whose calls these are: the caller under its profile (the principal, or the local user), and the caller alone (its token), whose shares they take. */
  who: TaskCaller;
}

/** How a relayed round reports and whom it serves. */
interface Round {
  onProgress: Progress | undefined;
  sent: Promise<void>[];
  common: { principal?: string; caller?: string; profile?: string; session?: string };
  /** The client declared elicitation: a backend's question may go to it. */
  canAsk: boolean;
  /** The client takes tasks: a round still running after the board's `afterMs` becomes one. */
  board: TaskBoard | undefined;
}

export async function callTool(tools: ReadonlyMap<string, ServedTool>, request: CallToolRequest, ctx: ServerContext, call: CallContext) {
  const tool = tools.get(request.params.name);
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown tool "${request.params.name}"; this server has ${[...tools.keys()].join(", ")}`);
  const { definition } = call;
  try {
    const token = ctx.mcpReq._meta?.progressToken;
    const sent: Promise<void>[] = [];
    const onProgress: Progress | undefined =
      token === undefined
        ? undefined
        : (update) => void sent.push(ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, ...update } }).catch(() => {}));
    // A 2026-07-28 request declares its client's capabilities itself; a 2025 session did once, at initialize.
    const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
    const declared = (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ?? call.server.getClientCapabilities() ?? {};
    const args = request.params.arguments ?? {};
    const common = { principal: definition.principal, caller: definition.caller, profile: definition.profile, session: call.session };
    // A 2026-07-28 request carries its envelope: its client is asked through results, never a pushed request.
    if (ctx.mcpReq.envelope !== undefined) {
      // A client that takes tasks gets one for a call that runs long (tasks.ts).
      const board = call.tasks && declared.extensions?.[TASKS_EXTENSION] !== undefined ? call.tasks : undefined;
      if (call.relay && (declared.elicitation !== undefined || board))
        return await relayed(tool, args, ctx, call.relay, { onProgress, sent, common, canAsk: declared.elicitation !== undefined, board }, call.who);
      const peer: ClientPeer = { id: call.server, elicitation: false, sampling: false, elicit: refuse, createMessage: refuse };
      const result = await tool.call(args, { signal: ctx.mcpReq.signal, onProgress, peer, ...common });
      await progressSent(sent);
      return result;
    }
    // Requests go out tied to this call (over HTTP, on its own response stream), and end with it.
    const peer: ClientPeer = {
      id: call.server,
      elicitation: declared.elicitation !== undefined,
      sampling: declared.sampling !== undefined,
      elicit: (params, signal) => ctx.mcpReq.elicitInput(params as ElicitRequestFormParams, { signal, timeout: INTERACTION_TIMEOUT_MS }),
      createMessage: async (params, signal) =>
        (await ctx.mcpReq.requestSampling(params as Parameters<typeof ctx.mcpReq.requestSampling>[0], {
          signal,
          timeout: INTERACTION_TIMEOUT_MS,
        })) as CreateMessageResult,
    };
    const result = await tool.call(args, { signal: ctx.mcpReq.signal, onProgress, peer, ...common });
    await progressSent(sent);
    return result;
  } catch (error) {
    definition.onFault?.(tool.name, error);
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, content: [{ type: "text" as const, text: `internal error in ${tool.name}: ${message}` }] };
  }
}

/**
 * Progress must reach the client before the result, which ends its
 * listening; and in an earlier write, since the SDK's client drops
 * progress it reads in one chunk with the result (backends/after-notifications.ts).
 */
async function progressSent(sent: Promise<void>[]): Promise<void> {
  await Promise.all(sent);
  if (sent.length) await new Promise((resolve) => setImmediate(resolve));
}

/** A round of a 2026-07-28 client's call: starts it, or resumes the parked one its state names with its answer; then the result, or the next question. */
async function relayed(
  tool: ServedTool,
  args: Record<string, unknown>,
  ctx: ServerContext,
  relay: NonNullable<CallContext["relay"]>,
  round: Round,
  who: TaskCaller,
): Promise<CallToolResult> {
  const { onProgress, sent, common, board } = round;
  const state = ctx.mcpReq.requestState<ParkedState>();
  let parked: ParkedCall;
  if (state) {
    const answer = answerOf(ctx.mcpReq.inputResponses?.[QUESTION_KEY]);
    // Answered once, whichever replica the retry reaches: a replayed state finds its question claimed.
    if (!(await relay.questions.claim(state))) return over();
    const found = relay.questions.take(state);
    if (!found) {
      // The call waits in another replica: the answer goes to it through the store, and what came of it comes back.
      const step = await relay.questions.resumeElsewhere(state, answer, ctx.mcpReq.signal);
      if (!step) return over();
      if (step.kind === "error") throw new Error(step.message);
      if (step.kind === "result") return step.result;
      return asQuestion(step.params, await relay.codec.mint(step.state, ctx));
    }
    parked = found;
    parked.answer(answer);
  } else {
    const holder: { call?: ParkedCall } = {};
    // The same client across the rounds: a backend's questions take turns per client (backends/peers.ts).
    const id = {};
    parked = holder.call = new ParkedCall((signal, ask) =>
      tool.call(args, {
        signal,
        onProgress: (update) => holder.call?.progress?.(update),
        peer: { id, elicitation: round.canAsk, sampling: false, elicit: ask, createMessage: refuse },
        ...common,
      }),
    );
  }
  parked.progress = onProgress;
  try {
    const step = board ? await nextOrTask(parked, ctx.mcpReq.signal, board, who) : await parked.next(ctx.mcpReq.signal);
    if (step.kind === "task") return step.result;
    if (step.kind === "result") return step.result;
    const payload = relay.questions.park(parked);
    return inputRequired({
      inputRequests: { [QUESTION_KEY]: questionRequest(step.params) },
      requestState: await relay.codec.mint(payload, ctx),
    }) as unknown as CallToolResult;
  } finally {
    // A call that became a task reports to its task from now on.
    if (parked.progress === onProgress) parked.progress = undefined;
    await Promise.all(sent);
  }
}

/**
 * The call's next step, or, if it is not there within the board's
 * `afterMs`, a task the call goes on as (the client reads it with
 * `tasks/get`). Until then the request's signal cancels the call; after,
 * only `tasks/cancel` does. With no room for the task in its caller's
 * share, the call is waited for as it is, the request's signal still
 * cancelling it.
 */
async function nextOrTask(
  parked: ParkedCall,
  signal: AbortSignal,
  board: TaskBoard,
  who: TaskCaller,
): Promise<Step | { kind: "task"; result: CallToolResult }> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  const pending = parked.next(controller.signal);
  let timer: NodeJS.Timeout | undefined;
  try {
    const first = await Promise.race([pending, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), board.options.afterMs)))]);
    if (first) return first;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
  const task = await board.adopt(parked, pending, who, controller);
  if (task) return { kind: "task", result: { ...task, resultType: "task" } as unknown as CallToolResult };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  try {
    return await pending;
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The question as the client is asked it: `input_required`, with the state its retry sends back. */
function asQuestion(params: ElicitRequest["params"], requestState: string): CallToolResult {
  return inputRequired({ inputRequests: { [QUESTION_KEY]: questionRequest(params) }, requestState }) as unknown as CallToolResult;
}

/** A retry whose call is over (or whose question was answered already). */
function over(): CallToolResult {
  return {
    isError: true,
    content: [
      {
        type: "text",
        text: "The call this answer belongs to is over (its question went unanswered too long, or it was answered already); run the tool again.",
      },
    ],
  };
}

/** What a client that cannot be asked answers; never reached (peers.ts asks only a peer that declared the feature). */
function refuse(): Promise<never> {
  return Promise.reject(new Error("this client cannot be asked"));
}
