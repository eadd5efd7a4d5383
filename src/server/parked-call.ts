/**
 * A call that keeps running between the requests of its client: it is
 * waited on step by step (its result, or a question it asks), and a
 * question's answer is handed to it when the client gives one. The request
 * that returned a question is over; the call is not: it ends when it
 * completes, when the waiting request's signal is cancelled, or when it is
 * abandoned (nobody came back for it).
 *
 * Questions to 2026-07-28 clients travel this way as results
 * (questions.ts), and so does a call that became a task (tasks.ts).
 */
import type { CallToolResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/server";

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

/** A client's answer as the backend takes it; anything else is "cancel". */
export function answerOf(response: unknown): ElicitResult {
  if (!response || typeof response !== "object" || Array.isArray(response)) return { action: "cancel" };
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action !== "accept" && action !== "decline" && action !== "cancel") return { action: "cancel" };
  if (content === undefined) return { action };
  if (!content || typeof content !== "object" || Array.isArray(content)) return { action: "cancel" };
  // The spec's values: a string, a number, a boolean, or (a multi-select) a list of strings.
  const fits = Object.values(content).every(
    (v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean" || (Array.isArray(v) && v.every((x) => typeof x === "string")),
  );
  return fits ? { action, content: content as ElicitResult["content"] } : { action: "cancel" };
}
