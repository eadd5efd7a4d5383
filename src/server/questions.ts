/**
 * A backend's question to a 2026-07-28 client, which cannot be sent a
 * request: the call is parked and the client is answered
 * `input_required`, with the question and a `requestState` naming the parked
 * call; its retry carries the answer, which goes to the backend, and waits
 * for what comes next (the result, or another question).
 *
 * The call keeps running between the rounds, on a signal of its own: the
 * request that returned `input_required` is over, the call is not. It ends
 * when it completes, when the client cancels a retry, or when no retry
 * comes within the question's lifetime (it is then cancelled, and the
 * backend is told the question was not answered).
 *
 * The `requestState` is signed (HMAC), bound to the caller and expires with
 * the question: a forged, altered, another caller's or late one is refused
 * before any handler runs. It names a call in this process: a retry that
 * reaches another one (a replica) finds nothing and is told to run the call again.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createRequestStateCodec, type CallToolResult, type ElicitRequest, type ElicitResult, type InputRequest } from "@modelcontextprotocol/server";

/** What a parked call did next: finished, or asked. */
export type Step = { kind: "result"; result: CallToolResult } | { kind: "question"; params: ElicitRequest["params"] };

/** Where a parked call's progress goes: the request waiting on it now, if any. */
export type ProgressSink = ((update: { progress: number; total?: number; message?: string }) => void) | undefined;

/** A call whose questions travel as results. */
export class ParkedCall {
  readonly controller = new AbortController();
  /** The question asked and not yet answered. */
  private asked: { params: ElicitRequest["params"]; answer(result: ElicitResult): void } | undefined;
  private settled: CallToolResult | undefined;
  private failure: { error: unknown } | undefined;
  /** Who waits for the next step. */
  private waiter: ((step: Step | { kind: "error"; error: unknown }) => void) | undefined;
  progress: ProgressSink;

  constructor(run: (signal: AbortSignal, ask: (params: ElicitRequest["params"], signal: AbortSignal) => Promise<ElicitResult>) => Promise<CallToolResult>) {
    run(this.controller.signal, (params, signal) => this.ask(params, signal)).then(
      (result) => {
        this.settled = result;
        this.wake();
      },
      (error: unknown) => {
        this.failure = { error };
        this.wake();
      },
    );
  }

  /** Waits for the call to finish or to ask; `signal` (the waiting request's) cancels the call. */
  next(signal: AbortSignal): Promise<Step> {
    const onAbort = () => this.controller.abort(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    return new Promise<Step | { kind: "error"; error: unknown }>((resolve) => {
      this.waiter = resolve;
      this.wake();
    })
      .finally(() => signal.removeEventListener("abort", onAbort))
      .then((step) => {
        if (step.kind === "error") throw step.error;
        return step;
      });
  }

  /** The client's answer to the question asked: on to the backend. */
  answer(result: ElicitResult): void {
    const asked = this.asked;
    this.asked = undefined;
    asked?.answer(result);
  }

  /** Ends a call nobody came back for. */
  abandon(reason: string): void {
    this.answer({ action: "cancel" });
    this.controller.abort(new Error(reason));
  }

  private ask(params: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult> {
    return new Promise<ElicitResult>((resolve, reject) => {
      const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("the call ended before its question was answered"));
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      this.asked = {
        params,
        answer: (result) => {
          signal.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      this.wake();
    });
  }

  private wake(): void {
    const waiter = this.waiter;
    if (!waiter) return;
    let step: Step | { kind: "error"; error: unknown } | undefined;
    if (this.failure) step = { kind: "error", error: this.failure.error };
    else if (this.settled) step = { kind: "result", result: this.settled };
    else if (this.asked) step = { kind: "question", params: this.asked.params };
    if (!step) return;
    this.waiter = undefined;
    waiter(step);
  }
}

/** The payload a `requestState` carries: which parked call, and which question of it. */
export interface ParkedState {
  call: string;
  question: string;
}

/** The key under which the question travels in `inputRequests` and its answer in `inputResponses`. */
export const QUESTION_KEY = "question";

/**
 * The calls parked in this process, each until its retry comes or its
 * question's lifetime is over; and the signing key of their `requestState`.
 */
export class QuestionRelay {
  private readonly parked = new Map<string, { call: ParkedCall; question: string; timer: NodeJS.Timeout }>();
  private readonly key = randomBytes(32);

  constructor(
    /** How long a question waits for its answer: the call is then cancelled. */
    readonly lifetimeMs: number,
  ) {}

  get size(): number {
    return this.parked.size;
  }

  /** A codec binding each state to `principal` (the caller's id): another caller's state fails its check. */
  codec(principal: string) {
    return createRequestStateCodec<ParkedState>({ key: this.key, ttlSeconds: Math.ceil(this.lifetimeMs / 1000), bind: () => principal });
  }

  /** Parks `call` until its retry; returns its state payload. */
  park(call: ParkedCall, id: string = randomUUID()): ParkedState {
    const question = randomUUID();
    const timer = setTimeout(() => {
      this.parked.delete(id);
      call.abandon(`the question was not answered within ${Math.round(this.lifetimeMs / 1000)} s`);
    }, this.lifetimeMs);
    timer.unref();
    this.parked.set(id, { call, question, timer });
    return { call: id, question };
  }

  /** The parked call a retry names, taken out (one retry per question: a replayed state finds nothing). */
  take(state: ParkedState): ParkedCall | undefined {
    const entry = this.parked.get(state.call);
    if (!entry || entry.question !== state.question) return undefined;
    this.parked.delete(state.call);
    clearTimeout(entry.timer);
    return entry.call;
  }

  /** Cancels every parked call (the server is closing). */
  close(): void {
    for (const [id, entry] of this.parked) {
      clearTimeout(entry.timer);
      entry.call.abandon("the server is closing");
      this.parked.delete(id);
    }
  }
}

/** The question as `input_required` carries it. */
export function questionRequest(params: ElicitRequest["params"]): InputRequest {
  return { method: "elicitation/create", params } as InputRequest;
}
