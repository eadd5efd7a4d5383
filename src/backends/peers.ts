/**
 * A backend's requests back to a client during a call: elicitation (ask
 * the user) and sampling (ask the model), declared to backends as the
 * client side can answer them (ClientFeatures: over stdio, what its client
 * declared; over HTTP, both). A request goes to the client whose call is in progress on that
 * backend, with the backend's namespace in what the user reads. It is
 * refused, saying why, when no call is in progress, when that client did
 * not declare the capability, or when calls from several clients are in
 * progress on the backend: nothing in the protocol says which of them a
 * request belongs to, and a question must never reach the wrong person.
 * Once a backend has asked, its calls from different clients take turns
 * (one client's calls at a time; a client's own calls still overlap), so
 * every later question has one possible addressee.
 */
import {
  ErrorCode,
  McpError,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from "@modelcontextprotocol/sdk/types.js";
import type { ClientPeer } from "../model/peer.js";
import type { Redact } from "../util/redact.js";

export class CallingPeers {
  private readonly calls = new Map<object, { peer: ClientPeer; count: number }>();
  /** Set once the backend has asked a client something: from then on clients take turns. */
  private asks = false;
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly namespace: string,
    private readonly redact: Redact = (text) => text,
  ) {}

  /**
   * A call of `peer`'s starts (after its turn, for a backend that asks);
   * the returned function ends it. Rejects when `signal` aborts or `ms`
   * pass before the turn comes.
   */
  async enter(peer: ClientPeer | undefined, signal?: AbortSignal, ms = Infinity): Promise<() => void> {
    if (!peer) return () => {};
    const deadline = Date.now() + ms;
    while (this.asks && [...this.calls.keys()].some((id) => id !== peer.id)) await this.turn(signal, deadline);
    const entry = this.calls.get(peer.id) ?? { peer, count: 0 };
    entry.count++;
    this.calls.set(peer.id, entry);
    return () => {
      if (--entry.count > 0) return;
      this.calls.delete(peer.id);
      for (const wake of [...this.waiting]) wake();
    };
  }

  /** Settles when a client's calls have all ended; rejects on abort or at the deadline. */
  private turn(signal: AbortSignal | undefined, deadline: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiting.delete(wake);
        if (error) reject(error);
        else resolve();
      };
      const wake = () => done();
      const onAbort = () => done(signal?.reason instanceof Error ? signal.reason : new Error("cancelled while waiting for its turn"));
      const timer = setTimeout(
        () =>
          done(
            new TurnTimeout(
              `${this.namespace} was busy with another client's call that asks its user or model questions; this call's time ran out waiting for its turn`,
            ),
          ),
        Math.max(0, Math.min(deadline - Date.now(), 2 ** 31 - 1)),
      );
      this.waiting.add(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  ask(kind: "elicitation", params: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult>;
  ask(kind: "sampling", params: CreateMessageRequest["params"], signal: AbortSignal): Promise<CreateMessageResult>;
  async ask(
    kind: "elicitation" | "sampling",
    params: ElicitRequest["params"] | CreateMessageRequest["params"],
    signal: AbortSignal,
  ): Promise<ElicitResult | CreateMessageResult> {
    this.asks = true;
    const peers = [...this.calls.values()].map((c) => c.peer);
    const what = kind === "elicitation" ? "a question for the user (elicitation)" : "a request for the model (sampling)";
    if (!peers.length)
      throw refused(
        `${this.namespace} sent ${what} with no call of its open from a client that can answer (a command-line run cannot); it can only ask during a client's call`,
      );
    if (peers.length > 1) {
      throw refused(
        `${this.namespace} sent ${what} while calls from ${peers.length} clients were in progress on it; metatools cannot tell whose it is, so it is asked of none. Retry the call when the others are done`,
      );
    }
    const peer = peers[0]!;
    const meta = { ...(params._meta ?? {}), "io.metatools/namespace": this.namespace };
    if (kind === "elicitation") {
      if (!peer.elicitation)
        throw refused(
          `the client connected to metatools does not support elicitation (it did not declare it when it connected), so ${this.namespace} cannot ask its user`,
        );
      const form = params as ElicitRequest["params"];
      return peer.elicit({ ...form, message: `[${this.namespace}] ${this.redact(form.message)}`, _meta: meta }, signal);
    }
    if (!peer.sampling)
      throw refused(
        `the client connected to metatools does not support sampling (it did not declare it when it connected), so ${this.namespace} cannot ask its model`,
      );
    return peer.createMessage({ ...(params as CreateMessageRequest["params"]), _meta: meta }, signal);
  }
}

/** A call that waited past its time for its turn. */
export class TurnTimeout extends Error {}

function refused(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, message);
}
