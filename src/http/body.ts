/**
 * Reads a POST body under the size limit and parses it as JSON-RPC, so the
 * server can charge the rate limit per message (a batch is many calls) and
 * hand the transport a parsed body.
 */
import type { IncomingMessage } from "node:http";
import type { Refusal } from "./guard.js";
import { errorMessage } from "../util/errors.js";
import { depthRefusal, nestsDeeper } from "../util/json-frame.js";

export interface ParsedBody {
  body: unknown;
  /** JSON-RPC messages in it: a batch's length, else 1. */
  messages: number;
}

/** How much of an oversized body is still read (and dropped) so the client gets its 413 rather than a reset. */
const DRAIN_BYTES = 1 << 20;

/**
 * Reads and parses the body. A client that has not sent it all within
 * `timeoutMs` gets 408 (and the connection closes after it): a valid token
 * must not let a slow sender hold a connection open.
 */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<ParsedBody | Refusal> {
  const tooLarge = (size: string): Refusal => ({
    status: 413,
    message: `request body of ${size} exceeds the limit of ${maxBytes} bytes (metatools.http.maxBodyBytes)`,
  });
  const declared = Number(req.headers["content-length"]);
  if (declared > maxBytes) return tooLarge(`${declared} bytes`);
  const read = await collect(req, maxBytes, timeoutMs);
  if (read === "timeout") return { status: 408, message: `the request body did not arrive within ${timeoutMs} ms (metatools.http.bodyTimeoutMs)` };
  const { chunks, size } = read;
  if (size > maxBytes) return tooLarge("more bytes than that");
  const bytes = Buffer.concat(chunks);
  // Counted on the bytes before anything walks the value: past the limit, what comes after the parse would overflow the stack.
  const deep = nestsDeeper(bytes);
  let body: unknown;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    return { status: 400, code: -32700, message: `Parse error: the body is not JSON (${errorMessage(error)})` };
  }
  if (deep) return { status: 400, code: -32600, message: depthRefusal(), id: idOf(body) };
  return { body, messages: Array.isArray(body) ? Math.max(1, body.length) : 1 };
}

/** The body's chunks up to `maxBytes` and its full size, or "timeout". Rejects when the client goes away. */
function collect(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<{ chunks: Buffer[]; size: number } | "timeout"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: { chunks: Buffer[]; size: number } | "timeout" | Error) => {
      clearTimeout(timer);
      req.off("data", onData).off("end", onEnd).off("error", settle);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    // Reading stops, unfinished, so the 408 can be sent; the connection closes after it.
    const timer = setTimeout(() => {
      req.pause();
      settle("timeout");
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      // Past the limit the rest is read and dropped, up to a bound, so the client (still sending) can read the 413;
      // beyond the bound the connection is closed unread.
      else if (size > maxBytes + DRAIN_BYTES) {
        req.destroy();
        settle({ chunks, size });
      }
    };
    const onEnd = () => settle({ chunks, size });
    req.on("data", onData).on("end", onEnd).on("error", settle);
  });
}

/** A single message's id, read one level deep (the rest is not walked); null for a batch or no plain id. */
function idOf(body: unknown): string | number | null {
  const id = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
