/**
 * JSON messages checked for shape before anything walks them. V8 parses
 * JSON nested a million deep without trouble, but everything after it
 * recurses: JSON.stringify overflows the stack at about 4,000 levels,
 * structuredClone at 3,000, a recursive schema at 1,600. So each message's
 * nesting is counted on its bytes, in one pass with no recursion (strings
 * and their escapes skipped), and one nested deeper than MAX_JSON_DEPTH,
 * or larger than its byte limit, is refused whole before it is parsed.
 *
 * `JsonLines` does this to a stream of newline-delimited messages (stdio):
 * a refused line is dropped up to its newline and the next one is read as
 * usual, so one oversized message costs that message, not the connection.
 */

/** The deepest a JSON message may nest: far past any real request (a tool's arguments may nest 32 levels), far below where anything overflows. */
export const MAX_JSON_DEPTH = 128;

/** Counting state of one message, carried from chunk to chunk. */
export interface DepthState {
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** The most the message nested so far. */
  deepest: number;
}

export function depthState(): DepthState {
  return { depth: 0, inString: false, escaped: false, deepest: 0 };
}

/**
 * Counts the nesting of `bytes` (UTF-8 JSON, or a part of it) into `state`; stops early, returning true, once it is
 * deeper than `limit`. Multi-byte characters need no care: their bytes are never `"`, `\`, brackets or braces.
 */
export function countDepth(bytes: Uint8Array, state: DepthState, limit: number, from = 0, to = bytes.length): boolean {
  let { depth, inString, escaped } = state;
  for (let i = from; i < to; i++) {
    const c = bytes[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) {
        Object.assign(state, { depth, inString, escaped, deepest: depth });
        return true;
      }
      if (depth > state.deepest) state.deepest = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  Object.assign(state, { depth, inString, escaped });
  return false;
}

/**
 * The nesting of the JSON a server-sent event stream carries, counted as
 * its bytes arrive: only the text of `data:` lines (the other fields can
 * hold any characters, which must not be read as JSON), the data lines of
 * one event read as one text, counted afresh at each event.
 */
export class EventDepth {
  private state = depthState();
  /** The bytes of the current line seen so far, up to the field's name; undefined once the field is known. */
  private field: number[] | undefined = [];
  private data = false;
  private blank = true;
  private afterCR = false;

  constructor(private readonly limit = MAX_JSON_DEPTH) {}

  /** Counts `bytes`; true once an event's data nests deeper than the limit. */
  push(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i]!;
      if (byte === 0x0a && this.afterCR) {
        this.afterCR = false;
        continue;
      }
      this.afterCR = byte === 0x0d;
      if (byte === 0x0a || byte === 0x0d) {
        // An empty line ends the event; a data line's end is a newline in its text (no JSON token spans it).
        if (this.blank) this.state = depthState();
        this.field = [];
        this.data = false;
        this.blank = true;
        continue;
      }
      this.blank = false;
      if (this.field) {
        if (byte === 0x3a) {
          this.data = String.fromCharCode(...this.field) === "data";
          this.field = undefined;
        } else if (this.field.length < 8) this.field.push(byte);
        continue;
      }
      if (this.data && countDepth(bytes, this.state, this.limit, i, i + 1)) return true;
    }
    return false;
  }
}

/** Whether a whole JSON text nests deeper than `limit`. */
export function nestsDeeper(bytes: Uint8Array, limit = MAX_JSON_DEPTH): boolean {
  return countDepth(bytes, depthState(), limit);
}

/** Why a message was refused, in words that name the limit. */
export function depthRefusal(limit = MAX_JSON_DEPTH): string {
  return `Invalid Request: the message nests deeper than ${limit} levels, the most a message may (no request needs more); it was not read`;
}

/** Whether a message names a method (a request or a notification, not a response), seen at its start or its end. */
export function isRequest(head: string, tail: string): boolean {
  return (
    /^\s*\{(?:\s*"(?:jsonrpc|id)"\s*:\s*(?:"(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*,)*\s*"method"\s*:/.test(head) ||
    /[{,]\s*"method"\s*:\s*"(?:[^"\\]|\\.){0,200}"(?:\s*,\s*"(?:jsonrpc|id)"\s*:\s*(?:"(?:[^"\\]|\\.){0,200}"|-?\d{1,16}))*\s*\}\s*$/.test(tail)
  );
}

/** The `id` of a JSON-RPC message from a piece of its text (its start or its end), when it is a plain number or a short string there; else null. */
export function idIn(head: string, tail: string): string | number | null {
  const value =
    /^\s*\{(?:\s*"jsonrpc"\s*:\s*"2\.0"\s*,)?\s*"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*[,}]/.exec(head)?.[1] ??
    /[{,]\s*"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})\s*\}\s*$/.exec(tail)?.[1];
  if (value === undefined) return null;
  try {
    const id = JSON.parse(value) as unknown;
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

export interface RefusedLine {
  /** The refused message's id, where it could be read (else null: JSON-RPC's answer to a request it cannot identify). */
  id: string | number | null;
  /** It names a method: a request (or a notification, with no id) to answer; else it is a response to one of ours, and is only dropped. */
  request: boolean;
  /** Which limit it passed. */
  cause: "size" | "depth";
  /** Why, naming the limit. */
  reason: string;
  /** Bytes of the message (at least; a refused message is not read further than its end). */
  bytes: number;
}

/** How much of a refused line's start and end is kept to find its id. */
const EDGE = 512;

/**
 * Splits a byte stream into lines (messages), each passed on whole with its
 * newline once it ends, unless it is larger than `maxBytes` or nests deeper
 * than `maxDepth`: then it is dropped, up to its newline, and refused.
 */
export class JsonLines {
  private parts: Buffer[] = [];
  private size = 0;
  private state = depthState();
  /** The current line is refused: its bytes are dropped until its newline. */
  private refused: { cause: RefusedLine["cause"]; reason: string } | undefined;
  private head = "";
  private tail = "";

  constructor(
    private readonly limits: { maxBytes: number; maxDepth?: number },
    private readonly onLine: (line: Buffer) => void,
    private readonly onRefused: (refused: RefusedLine) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(10, start);
      const stop = end < 0 ? chunk.length : end;
      this.take(chunk, start, stop);
      if (end < 0) return;
      this.finish();
      start = end + 1;
    }
  }

  /** The stream ended: a last line without a newline is passed on (or refused) as if it had one. */
  end(): void {
    if (this.size || this.refused) this.finish();
  }

  private take(chunk: Buffer, from: number, to: number): void {
    if (from === to) return;
    const piece = chunk.subarray(from, to);
    this.size += piece.length;
    if (this.refused === undefined) {
      if (this.size > this.limits.maxBytes)
        this.refuse("size", `Invalid Request: the message is larger than ${this.limits.maxBytes} bytes, the most one stdio message may be; it was not read`);
      else if (countDepth(piece, this.state, this.limits.maxDepth ?? MAX_JSON_DEPTH)) this.refuse("depth", depthRefusal(this.limits.maxDepth));
      else this.parts.push(piece);
    }
    // Kept of every line, refused or not, so a refusal can name the message's id.
    if (this.head.length < EDGE) this.head += piece.subarray(0, EDGE - this.head.length).toString("latin1");
    this.tail = (this.tail + piece.subarray(Math.max(0, piece.length - EDGE)).toString("latin1")).slice(-EDGE);
  }

  private refuse(cause: RefusedLine["cause"], reason: string): void {
    this.refused = { cause, reason };
    this.parts = [];
  }

  private finish(): void {
    if (this.refused !== undefined)
      this.onRefused({ id: idIn(this.head, this.tail), request: isRequest(this.head, this.tail), ...this.refused, bytes: this.size });
    else if (this.size) this.onLine(Buffer.concat([...this.parts, NEWLINE]));
    this.parts = [];
    this.size = 0;
    this.state = depthState();
    this.refused = undefined;
    this.head = "";
    this.tail = "";
  }
}

const NEWLINE = Buffer.from("\n");
