/**
 * A stdio client's input, read from the first moment and bounded per
 * message, for the transport once it connects.
 */
import { PassThrough } from "node:stream";
import { JsonLines, type RefusedLine } from "../util/json-frame.js";

/**
 * The most bytes one stdio message may take: the SDK reader's own bound, which closes the transport past it; metatools
 * refuses such a message itself first (json-frame.ts) and keeps serving.
 */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

export interface ClientInput {
  /** Every accepted message, for the transport (buffered until it connects). */
  stream: PassThrough;
  /** The first message (undefined after `ms`, or at the end). */
  firstLine(ms: number): Promise<string | undefined>;
  /** Settles when the client closes its side. */
  ended: Promise<void>;
  /** Reads no more. */
  stop(): void;
}

/**
 * Reads `stdin`, after `prefix` (what the quick start read before). A
 * message larger than STDIO_MAX_MESSAGE_BYTES or nested deeper than
 * MAX_JSON_DEPTH never reaches the transport: `onRefused` gets its id and
 * why. `onAccepted` sees each message passed on.
 */
export function readInput(
  stdin: NodeJS.ReadStream,
  prefix: Buffer | undefined,
  onRefused: (refused: RefusedLine) => void,
  onAccepted?: (line: Buffer) => void,
): ClientInput {
  const stream = new PassThrough();
  let line: string | undefined;
  let settle: ((line: string | undefined) => void) | undefined;
  let resolveEnded: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const lines = new JsonLines(
    { maxBytes: STDIO_MAX_MESSAGE_BYTES },
    (accepted) => {
      stream.write(accepted);
      onAccepted?.(accepted);
      if (line !== undefined) return;
      line = accepted.subarray(0, Math.min(accepted.length - 1, 1 << 20)).toString("utf8");
      settle?.(line);
    },
    onRefused,
  );
  const onData = (chunk: Buffer) => lines.push(chunk);
  const onEnd = () => {
    lines.end();
    stream.end();
    settle?.(line);
    resolveEnded();
  };
  // What was read before (the quick start) comes first; a stdin that ended meanwhile ends the input now.
  if (prefix?.length) lines.push(prefix);
  stdin.on("data", onData);
  // Paused by the quick start: a listener alone does not resume an explicitly paused stream.
  stdin.resume();
  if (stdin.readableEnded) onEnd();
  else stdin.once("end", onEnd);
  return {
    stream,
    ended,
    firstLine: (ms) =>
      line !== undefined || stdin.readableEnded
        ? Promise.resolve(line)
        : new Promise((resolve) => {
            const timer = setTimeout(() => settle?.(undefined), ms);
            timer.unref();
            settle = (found) => {
              settle = undefined;
              clearTimeout(timer);
              resolve(found);
            };
          }),
    stop: () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
    },
  };
}
