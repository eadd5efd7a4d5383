/**
 * Reading what a remote party sends without ever holding more than a set
 * amount of it. A fetch `Response` is handed on with its body wrapped, so
 * whoever reads it (the MCP SDK's JSON parsing, its event-stream parser)
 * gets an error at the limit instead of a string the size of whatever the
 * other side chose to send. Erroring the wrapped body also cancels the
 * original, which closes the connection: nothing more is received.
 */
import type { ErrorCode } from "../model/error-codes.js";
import { MetatoolsError } from "./errors.js";
import { countDepth, depthState, EventDepth } from "./json-frame.js";

/** How deep the JSON of a body may nest, and the error past it (the body errors as it does past its size). */
export interface DepthBound {
  limit: number;
  tooDeep: () => Error;
}

/** What a remote party sent went past its limit; the read stopped there. `code` is the caller's. */
export class TooLargeError extends MetatoolsError {
  constructor(
    code: ErrorCode,
    message: string,
    /** The limit, in bytes. */
    readonly limit: number,
  ) {
    super(code, message);
    this.name = "TooLargeError";
  }
}

/** "1 MiB", "10 MiB", "64 KiB", "100 bytes": a limit as a person reads it. */
export function byteWords(bytes: number): string {
  if (bytes >= 2 ** 20 && bytes % 2 ** 20 === 0) return `${bytes / 2 ** 20} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Statuses whose response can carry no body: a Response cannot be built around one. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);
const LF = 0x0a;
const CR = 0x0d;

/**
 * `response` whose body errors with `tooLarge()` once more than `maxBytes`
 * have arrived. A Content-Length that declares more fails at the first read,
 * before anything is received.
 */
export function boundBody(response: Response, maxBytes: number, tooLarge: () => Error, deep?: DepthBound): Response {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes && response.body && !NO_BODY.has(response.status)) {
    void response.body.cancel().catch(() => {});
    return rebuilt(response, new ReadableStream({ start: (controller) => controller.error(tooLarge()) }));
  }
  let seen = 0;
  const nested = deep && depthOf(response, deep.limit);
  return rewrapped(response, (chunk, controller) => {
    seen += chunk.byteLength;
    if (seen > maxBytes) controller.error(tooLarge());
    else if (nested?.(chunk)) controller.error(deep!.tooDeep());
    else controller.enqueue(chunk);
  });
}

/** A counter of the body's nesting as it arrives: an event stream's data, or the whole body as one JSON text. */
function depthOf(response: Response, limit: number): (chunk: Uint8Array) => boolean {
  if (response.headers.get("content-type")?.includes("text/event-stream")) {
    const events = new EventDepth(limit);
    return (chunk) => events.push(chunk);
  }
  const state = depthState();
  return (chunk) => countDepth(chunk, state, limit);
}

/**
 * `response` read as a server-sent event stream, whose body errors with
 * `tooLarge()` once one event (its lines, up to the blank line that ends
 * it) holds more than `maxBytes`. A stream lives long and may carry any
 * amount in all; only what a parser must hold at once is bounded, and a
 * line that never ends is one event that never ends.
 */
export function boundEvents(response: Response, maxBytes: number, tooLarge: () => Error, deep?: DepthBound): Response {
  const nested = deep && new EventDepth(deep.limit);
  // Bytes of the current line and of the current event; line ends are \n, \r or \r\n (the SSE grammar).
  let line = 0;
  let event = 0;
  let afterCR = false;
  return rewrapped(response, (chunk, controller) => {
    let over = false;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === LF && afterCR) {
        afterCR = false;
        continue;
      }
      afterCR = byte === CR;
      if (byte === LF || byte === CR) {
        // An empty line ends the event: what it held must have fitted, even when it ends within this chunk.
        if (line === 0) {
          over ||= event > maxBytes;
          event = 0;
        }
        line = 0;
      } else {
        line++;
        event++;
      }
    }
    if (over || event > maxBytes) controller.error(tooLarge());
    else if (nested?.push(chunk)) controller.error(deep!.tooDeep());
    else controller.enqueue(chunk);
  });
}

function rewrapped(response: Response, transform: (chunk: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>) => void): Response {
  if (!response.body || NO_BODY.has(response.status)) return response;
  return rebuilt(response, response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform })));
}

/** The same response around another body, keeping its URL (redirect messages name it). */
function rebuilt(response: Response, body: ReadableStream<Uint8Array>): Response {
  const wrapped = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(wrapped, "url", { value: response.url });
  return wrapped;
}
