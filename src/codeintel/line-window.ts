/**
 * Lines of a file too large to read whole, taken as the bytes stream past:
 * only the lines asked for are kept, each cut to a width, so memory stays
 * bounded by the window whatever the file holds (a 1 GB file with no line
 * break is one line, and no string of it is ever built). Lines are counted
 * on the way, up to a byte bound.
 */
import type { FileHandle } from "node:fs/promises";
import { looksBinary } from "./files.js";

const CHUNK = 1 << 20;
/**
 * Characters dropped from the end of a line's kept part before it is
 * redacted: a secret cut by the byte limit is unrecognisable, so the piece
 * of it at the cut must go. Longer than any secret's longest form.
 */
const REDACT_MARGIN = 1024;

export interface WindowRequest {
  /** 1-based, inclusive. */
  start: number;
  end: number;
  /** Longer lines are cut to this many characters, saying so. */
  maxLineChars: number;
  /** Counting stops after this many bytes. */
  maxScanBytes: number;
  /** Applied to each kept line before it is cut (secrets from the environment). */
  redact?: (text: string) => string;
  signal?: AbortSignal;
}

export interface LineWindow {
  lines: string[];
  /** Every line of the file, when it was read to the end. */
  totalLines?: number;
  /** Lines seen, and bytes read, when counting stopped at maxScanBytes. */
  counted?: { lines: number; bytes: number };
}

export async function readLineWindow(handle: FileHandle, size: number, request: WindowRequest): Promise<LineWindow | "binary"> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  const keep = request.maxLineChars * 4 + REDACT_MARGIN * 4;
  const lines: string[] = [];
  let line = 1;
  let parts: Buffer[] = [];
  let kept = 0;
  let length = 0;
  let position = 0;
  let lastByte = -1;
  const wanted = () => line >= request.start && line <= request.end;
  const finish = () => {
    let text = Buffer.concat(parts).toString("utf8");
    if (length > kept) text = text.slice(0, -REDACT_MARGIN);
    if (request.redact) text = request.redact(text);
    if (text.endsWith("\r") && length === kept) text = text.slice(0, -1);
    const cut = length > kept || text.length > request.maxLineChars;
    lines.push(cut ? `${text.slice(0, request.maxLineChars)}… [line is ${length} bytes]` : text);
    parts = [];
    kept = 0;
    length = 0;
  };
  while (position < size && position < request.maxScanBytes) {
    request.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, Math.min(CHUNK, size - position), position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    if (position === 0 ? looksBinary(chunk) : chunk.includes(0)) return "binary";
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(10, from);
      const to = newline < 0 ? chunk.length : newline;
      if (wanted()) {
        if (kept < keep) {
          const take = chunk.subarray(from, Math.min(to, from + keep - kept));
          parts.push(Buffer.from(take));
          kept += take.length;
        }
        length += to - from;
      }
      if (newline < 0) break;
      if (wanted()) finish();
      line++;
      from = newline + 1;
    }
    lastByte = chunk[bytesRead - 1]!;
    position += bytesRead;
  }
  const complete = position >= size;
  // A last line without a final newline is still a line.
  const open = complete && lastByte !== -1 && lastByte !== 10;
  if (open && wanted()) finish();
  const seen = open ? line : line - 1;
  return complete ? { lines, totalLines: seen } : { lines, counted: { lines: line - 1, bytes: position } };
}
