/**
 * Each caller's share of what serving holds for it at once: run_tool calls
 * in flight (tasks included: a task is a call still running) and questions
 * waiting for its answer (approvals metatools asks, and backends'
 * elicitation and sampling, in whatever form they reach the client). A
 * caller is its bearer token (or the local user), under every profile it
 * may use; on a shared Redis store, across every replica (store/slots.ts).
 * Past its share, a call is refused before anything runs, and a question is
 * not asked; another caller's are untouched.
 */
import { TooManyQuestions, type ClientPeer } from "../model/peer.js";
import { hint, recoverable, type Refusal } from "../disclosure/guidance.js";
import type { Slot, Slots } from "../store/slots.js";

export interface ShareLimits {
  callsPerCaller: number;
  questionsPerCaller: number;
}

export class CallerShares {
  constructor(
    private readonly calls: Slots,
    private readonly questions: Slots,
    readonly limits: ShareLimits,
  ) {}

  /** A slot for one run_tool call of `caller`, held until the call ends; or the reply that refuses it. */
  async call(caller: string): Promise<{ slot: Slot } | { refusal: Refusal }> {
    const slot = await this.calls.take(caller, this.limits.callsPerCaller);
    if (slot) return { slot };
    const most = this.limits.callsPerCaller;
    return {
      refusal: recoverable(
        "too_many_calls",
        `This caller has ${most} run_tool calls running already (tasks included), its share (metatools.serve.callsPerCaller); this call was refused and nothing was sent to the tool.`,
        hint(`Wait for one to finish (read a task with tasks/get, or cancel one with tasks/cancel), then run the same call again.`),
      ),
    };
  }

  /** `peer` whose every question holds one of `caller`'s question slots while it waits; past the share, it is not asked (TooManyQuestions). */
  peer(peer: ClientPeer, caller: string): ClientPeer {
    const bounded =
      <A extends unknown[], R>(ask: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        const slot = await this.questions.take(caller, this.limits.questionsPerCaller);
        if (!slot) throw new TooManyQuestions(this.limits.questionsPerCaller);
        try {
          return await ask(...args);
        } finally {
          slot.release();
        }
      };
    return { ...peer, elicit: bounded(peer.elicit.bind(peer)), createMessage: bounded(peer.createMessage.bind(peer)) };
  }

  close(): void {
    this.calls.close();
    this.questions.close();
  }
}
