import type { CreateMessageRequest, CreateMessageResult, ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** The two requests a backend may send back to the client during a call: ask its user (elicitation), ask its model (sampling). */
export type PeerRequestKind = "elicitation" | "sampling";

/**
 * The client a call came from, as a backend may need it while the call
 * runs: to ask its user something (elicitation) or its model for a
 * completion (sampling). `id` tells one client session from another.
 * What reaches these methods has been made safe to show (backends/peers.ts):
 * redacted, marked with the backend's namespace, bounded.
 */
export interface ClientPeer {
  id: object;
  /** What that client declared when it connected to metatools. */
  elicitation: boolean;
  sampling: boolean;
  elicit(params: ElicitRequest["params"], signal: AbortSignal): Promise<ElicitResult>;
  createMessage(params: CreateMessageRequest["params"], signal: AbortSignal): Promise<CreateMessageResult>;
}

/**
 * What metatools declares to its backends that it can pass on to a client:
 * over stdio, what its one client declared (read from its initialize
 * before the backends start); over HTTP, both (each call's own client
 * answers, or the request is refused).
 */
export interface ClientFeatures {
  elicitation: boolean;
  sampling: boolean;
}

/** The `_meta` key under which a request passed on to the client names the backend that sent it. */
export const NAMESPACE_META_KEY = "io.metatools/namespace";

/** A question not asked: its caller has `most` questions waiting for an answer already (metatools.serve.questionsPerCaller). */
export class TooManyQuestions extends Error {
  constructor(readonly most: number) {
    super(
      `this caller has ${most} questions waiting for an answer already, its share (metatools.serve.questionsPerCaller); this one was not asked. Answer or cancel the waiting ones first`,
    );
    this.name = "TooManyQuestions";
  }
}
