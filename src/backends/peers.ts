/**
 * A backend's requests back to a client during a call: elicitation (ask
 * the user) and sampling (ask the model), declared to backends as the
 * client side can answer them (ClientFeatures: over stdio, what its client
 * declared; over HTTP, both). A request goes to the client whose call is
 * in progress on that backend. It is refused, saying why, when no call is
 * in progress, when that client did not declare the capability, or when
 * calls from several clients are in progress on the backend: nothing in
 * the protocol says which of them a request belongs to, and a question
 * must never reach the wrong person.
 *
 * A request is the backend's words, untrusted like its results: what
 * reaches the client is redacted, says which backend asks (ask.ts), and is
 * bounded: so many per call, per minute and at once (RequestLimits), the
 * rest refused to the backend.
 *
 * Once a backend has asked, its calls from different clients take turns
 * (one client's calls at a time; a client's own calls still overlap), so
 * every later question has one possible addressee. Turns are first come,
 * first served, and a call waits for its turn at most the default call
 * timeout: whoever holds the backend, for however long, cannot keep
 * another caller waiting longer than that.
 */
import {
  ErrorCode,
  McpError,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import { DEFAULTS } from "../config/defaults.js";
import type { RequestLimits } from "../config/resolved.js";
import type { ClientPeer, PeerRequestKind } from "../model/peer.js";
import { noRedaction, type Redact } from "../util/redact.js";
import { forModel, forUser, UnshowableRequest } from "./ask.js";

/** One client's calls in progress here, and the questions they allow (maxPerCall each) and have used. */
interface Turn {
  peer: ClientPeer;
  count: number;
  allowed: number;
  asked: number;
}

interface Waiter {
  peer: ClientPeer;
  admit(turn: Turn): void;
}

const MINUTE_MS = 60_000;

export class CallingPeers {
  private readonly calls = new Map<object, Turn>();
  /** Set once the backend has asked a client something: from then on clients take turns. */
  private asks = false;
  /** Calls waiting for their turn, first come first served. */
  private readonly queue: Waiter[] = [];
  /** Questions passed on and not yet answered. */
  private open = 0;
  /** When each question of the last minute was passed on (at most maxPerMinute entries). */
  private recent: number[] = [];
  private readonly limits: RequestLimits;

  constructor(
    private readonly namespace: string,
    private readonly redact: Redact = noRedaction,
    limits?: RequestLimits,
  ) {
    this.limits = limits ?? { ...DEFAULTS.requests, turnWaitMs: DEFAULTS.timeouts.callMs };
  }

  /**
   * A call of `peer`'s starts (after its turn, for a backend that asks);
   * the returned function ends it. Rejects when `signal` aborts, or when
   * `ms` (at most the turn wait, the default call timeout) pass before the turn comes.
   */
  async enter(peer: ClientPeer | undefined, signal?: AbortSignal, ms = Infinity): Promise<() => void> {
    if (!peer) return () => {};
    const turn = this.mayEnter(peer.id) ? this.join(peer) : await this.waitTurn(peer, signal, Math.min(ms, this.limits.turnWaitMs));
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--turn.count > 0) return;
      this.calls.delete(peer.id);
      this.admit();
    };
  }

  private mayEnter(id: object): boolean {
    // Before the backend is known to ask, calls overlap freely (a question during an overlap is refused).
    if (!this.asks) return true;
    // A newcomer never passes a waiting call, even one of another client while its own client holds the turn.
    return this.queue.length === 0 && this.othersIdle(id);
  }

  private othersIdle(id: object): boolean {
    for (const key of this.calls.keys()) if (key !== id) return false;
    return true;
  }

  private join(peer: ClientPeer): Turn {
    const turn = this.calls.get(peer.id) ?? { peer, count: 0, allowed: 0, asked: 0 };
    turn.count++;
    turn.allowed += this.limits.maxPerCall;
    this.calls.set(peer.id, turn);
    return turn;
  }

  /** Lets in the waiting calls at the head of the queue whose turn it is; joined here, so no newcomer slips in before them. */
  private admit(): void {
    while (this.queue.length && this.othersIdle(this.queue[0]!.peer.id)) {
      const next = this.queue.shift()!;
      next.admit(this.join(next.peer));
    }
  }

  private waitTurn(peer: ClientPeer, signal: AbortSignal | undefined, ms: number): Promise<Turn> {
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter = {
        peer,
        admit: (turn) => {
          settle();
          resolve(turn);
        },
      };
      const fail = (error: Error) => {
        settle();
        const place = this.queue.indexOf(waiter);
        if (place >= 0) this.queue.splice(place, 1);
        // Calls queued behind this one may be let in now (its own client's, say).
        this.admit();
        reject(error);
      };
      const onAbort = () => fail(signal?.reason instanceof Error ? signal.reason : new Error("cancelled while waiting for its turn"));
      const timer = setTimeout(
        () =>
          fail(
            new TurnTimeout(
              `${this.namespace} is busy with another client's call that asks its user or model questions; this call waited for its turn ${ms} ms (at most the default call timeout) and was not started. Retry it later`,
            ),
          ),
        Math.max(0, Math.min(ms, 2 ** 31 - 1)),
      );
      this.queue.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  ask(kind: "elicitation", params: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult>;
  ask(kind: "sampling", params: CreateMessageRequest["params"], signal: AbortSignal): Promise<CreateMessageResult>;
  async ask(
    kind: PeerRequestKind,
    params: ElicitRequest["params"] | CreateMessageRequest["params"],
    signal: AbortSignal,
  ): Promise<ElicitResult | CreateMessageResult> {
    const turns = [...this.calls.values()];
    const what = kind === "elicitation" ? "a question for the user (elicitation)" : "a request for the model (sampling)";
    if (!turns.length)
      throw refused(
        `${this.namespace} sent ${what} with no call of its open from a client that can answer (a command-line run cannot); it can only ask during a client's call`,
      );
    if (turns.length > 1) {
      // Had the clients taken turns, one that can answer would have been asked: from now on they take turns here.
      if (turns.some((turn) => turn.peer[kind])) this.asks = true;
      throw refused(
        `${this.namespace} sent ${what} while calls from ${turns.length} clients were in progress on it; metatools cannot tell whose it is, so it is asked of none. Retry the call when the others are done`,
      );
    }
    const turn = turns[0]!;
    if (!turn.peer[kind]) {
      const whom = kind === "elicitation" ? "its user" : "its model";
      throw refused(
        `the client connected to metatools does not support ${kind} (it did not declare it when it connected), so ${this.namespace} cannot ask ${whom}`,
      );
    }
    // What the client would be shown, made first: a request that cannot be shown as the backend's is refused, and counts for nothing.
    let shown: ElicitRequest["params"] | CreateMessageRequest["params"];
    try {
      shown =
        kind === "elicitation"
          ? forUser(this.namespace, params as ElicitRequest["params"], this.redact)
          : forModel(this.namespace, params as CreateMessageRequest["params"], this.redact, this.limits.maxTokens);
    } catch (error) {
      if (error instanceof UnshowableRequest) throw refused(error.message);
      throw error;
    }
    this.checkBounds(turn);
    // Only a question passed on marks the backend as one that asks: a refused one changes nothing for other callers.
    this.asks = true;
    turn.asked++;
    this.open++;
    this.recent.push(Date.now());
    try {
      if (kind === "elicitation") return await turn.peer.elicit(shown as ElicitRequest["params"], signal);
      return await turn.peer.createMessage(shown as CreateMessageRequest["params"], signal);
    } finally {
      this.open--;
    }
  }

  /** Throws the refusal for a question over a bound: per call, at once, per minute. */
  private checkBounds(turn: Turn): void {
    const { maxPerCall, maxConcurrent, maxPerMinute } = this.limits;
    if (turn.asked >= turn.allowed)
      throw refused(
        `${this.namespace} has already sent ${turn.asked} questions (elicitation or sampling) during this call; metatools passes at most ${maxPerCall} per call to the client (metatools.requests.maxPerCall), so this one was not asked`,
      );
    if (this.open >= maxConcurrent)
      throw refused(
        `${this.namespace} already has ${this.open} questions waiting for an answer; metatools passes at most ${maxConcurrent} at once (metatools.requests.maxConcurrent), so this one was not asked. Ask again once one is answered`,
      );
    const now = Date.now();
    this.recent = this.recent.filter((at) => now - at < MINUTE_MS);
    if (this.recent.length >= maxPerMinute) {
      const seconds = Math.ceil((this.recent[0]! + MINUTE_MS - now) / 1000);
      throw refused(
        `${this.namespace} sent ${this.recent.length} questions in the last minute; metatools passes at most ${maxPerMinute} a minute from one backend (metatools.requests.maxPerMinute), so this one was not asked. It may ask again in ${seconds} s`,
      );
    }
  }
}

/** A call that waited past its time for its turn. */
export class TurnTimeout extends Error {
  readonly code = "turn_timeout";
}

function refused(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, message);
}
