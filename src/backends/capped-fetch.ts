/**
 * What a remote backend's answers and event streams may hold: counted as
 * they arrive, before the SDK parses anything, in bytes (an answer, an
 * event) and in nesting (the JSON they carry, util/json-frame.ts).
 */
import type { FetchLike } from "@modelcontextprotocol/client";
import { boundBody, boundEvents, byteWords, TooLargeError } from "../util/bounded-body.js";
import { MAX_JSON_DEPTH } from "../util/json-frame.js";

/** The most one answer may carry: the MCP SDK's own limit for a stdio message, so both kinds of backend agree. */
export const MAX_ANSWER_BYTES = 10 * 2 ** 20;

/**
 * The most one event of a Streamable HTTP backend's standalone event stream
 * (its GET) may hold. That stream carries notifications and the server's own
 * requests, never an answer (except when a broken answer is resumed on it:
 * then MAX_ANSWER_BYTES). Not configurable.
 */
export const MAX_EVENT_BYTES = 1 << 20;

/** What a backend's HTTP answers and event streams may hold (see cappedFetch). */
export interface Caps {
  /** One answer to a request, read whole. */
  answerBytes: number;
  /** One event of an event stream opened with GET. */
  eventBytes: number;
  /** What an event over `eventBytes` says. */
  eventTooLarge: () => Error;
}

/**
 * fetch that never holds more of a backend's answer than `caps` allow. An
 * answer to a request (a POST) stops with an error past `answerBytes` while
 * it is read, so a 100 MB answer is never held whole. An event stream (a
 * GET) lives long and may carry any amount in all, so each of its events is
 * bounded instead: one over `eventBytes` (a line that never ends, say)
 * errors the stream, which the SDK drops and opens again. Measured before
 * anything is parsed, so the SSE parser never buffers more than the limit.
 */
export function cappedFetch(caps: Caps, inner: FetchLike = fetch): FetchLike {
  return async (input, init) => {
    const response = await inner(input, init);
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    if (method !== "GET") return boundBody(response, caps.answerBytes, () => answerTooLarge(caps.answerBytes), TOO_DEEP_BOUND);
    // Resuming a stream (Last-Event-ID) may replay an answer that was broken off: it gets an answer's limit.
    if (new Headers(init?.headers).has("last-event-id")) return boundEvents(response, caps.answerBytes, () => answerTooLarge(caps.answerBytes), TOO_DEEP_BOUND);
    return boundEvents(response, caps.eventBytes, caps.eventTooLarge, TOO_DEEP_BOUND);
  };
}

/**
 * A backend's answer whose JSON nests past the limit every message is held to (util/json-frame.ts): reading it would
 * overflow the stack. Said like an answer too large (mcp.ts drops the connection on it, so the call fails now).
 */
const TOO_DEEP_BOUND = {
  limit: MAX_JSON_DEPTH,
  tooDeep: () =>
    new TooLargeError(
      "answer_too_large",
      `the answer was larger than metatools reads: it nests deeper than ${MAX_JSON_DEPTH} levels, the most a message may`,
      MAX_JSON_DEPTH,
    ),
};

/** mcp.ts recognises this message ("the answer was larger than") and drops the connection, so the call fails now, saying why. */
export function answerTooLarge(maxBytes: number): Error {
  return new TooLargeError(
    "answer_too_large",
    `the answer was larger than ${byteWords(maxBytes)}, the most one answer may be; ask for less (a smaller page, range or limit)`,
    maxBytes,
  );
}

/** Only the stream is dropped (the SDK opens it again): requests and their answers go on. */
export function eventTooLarge(maxBytes: number): Error {
  return new TooLargeError(
    "event_too_large",
    `an event of the backend's event stream was larger than ${byteWords(maxBytes)}, the most one event may be, so the stream was dropped (it is opened again)`,
    maxBytes,
  );
}
