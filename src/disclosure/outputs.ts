/**
 * Output handles: a result too big to send inline is kept server-side under
 * an opaque handle (`@out_…`), and the agent gets a compact summary plus the
 * exact call that reads a slice of it (`metatools:read_output`). The store is
 * an interface so a shared store (Redis, for replicas) can replace the
 * in-memory one without touching the tools.
 */
import { randomBytes } from "node:crypto";
import { jsonBytes, truncateBytes } from "./budget.js";
import { childPath } from "../util/json-path.js";
import { formatCall, type NextCall } from "./guidance.js";

export interface StoredOutput {
  kind: "text" | "json";
  /** Text as produced; JSON pretty-printed (two spaces), so line ranges read naturally. */
  text: string;
  /** What produced it, e.g. `code:read_file src/app.ts`, for messages. */
  source: string;
}

export interface OutputStore {
  put(output: StoredOutput): Promise<string>;
  get(handle: string): Promise<StoredOutput | undefined>;
}

export const HANDLE_PATTERN = /^@out_[A-Za-z0-9_-]{8,64}$/;
export const READ_OUTPUT_ID = "metatools:read_output";

export interface MemoryStoreOptions {
  /** Default 30 minutes. */
  ttlMs?: number;
  /** Total bytes kept; the least recently used outputs go first. Default 64 MiB. */
  maxBytes?: number;
}

/** The default store: in this process, bounded by bytes (LRU) and by age. */
export class MemoryOutputStore implements OutputStore {
  private readonly entries = new Map<string, { output: StoredOutput; bytes: number; expires: number }>();
  private bytes = 0;
  readonly ttlMs: number;
  private readonly maxBytes: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
    this.maxBytes = options.maxBytes ?? 64 << 20;
  }

  async put(output: StoredOutput): Promise<string> {
    const handle = `@out_${randomBytes(12).toString("base64url")}`;
    const bytes = Buffer.byteLength(output.text, "utf8");
    this.entries.set(handle, { output, bytes, expires: Date.now() + this.ttlMs });
    this.bytes += bytes;
    for (const [key, entry] of this.entries) {
      if (this.bytes <= this.maxBytes || key === handle) break;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
    return handle;
  }

  async get(handle: string): Promise<StoredOutput | undefined> {
    const entry = this.entries.get(handle);
    if (!entry) return undefined;
    this.entries.delete(handle);
    if (entry.expires < Date.now()) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(handle, entry);
    return entry.output;
  }
}

const SUMMARY_BYTES = 2000;
const HEAD_BYTES = 1200;

/**
 * Stores an oversized output and returns the response fields that replace
 * it: `handle`, a structure-aware `summary` (≤ 2 KB), and `next`, a call that
 * reads the first slice that fits `budget`.
 */
export async function spill(store: OutputStore, output: StoredOutput, budget: number): Promise<{ handle: string; summary: Record<string, unknown>; next: NextCall; hint: string }> {
  const handle = await store.put(output);
  const lines = output.text.split("\n");
  const value = output.kind === "json" ? parseJson(output.text) : NOT_JSON;
  const summary = summarize(output.text, value, lines);
  const end = linesThatFit(lines, 1, Math.floor(budget * 0.75));
  const next: NextCall = { tool: "run_tool", arguments: { tool_id: READ_OUTPUT_ID, args: { handle, start_line: 1, end_line: end } } };
  const ways = output.kind === "json" ? `a JSON path (args.json_path, e.g. "${examplePath(value)}"), ` : "";
  const hint = `The full output (${summary.bytes} bytes, ${lines.length} lines) is stored as ${handle}. Read it in slices by line range, ${ways}or grep (args.grep): ${formatCall(next)}`;
  return { handle, summary, next, hint };
}

/** The last line number from `start` whose lines together stay under `bytes` (at least `start`). */
export function linesThatFit(lines: readonly string[], start: number, bytes: number): number {
  let used = 0;
  let end = start - 1;
  while (end < lines.length && used + jsonBytes(lines[end]!) + 1 <= bytes) used += jsonBytes(lines[end++]!) + 1;
  return Math.max(start, end);
}

/** Stands for "not JSON" (a text output, or JSON text that does not parse), so each output is parsed once. */
const NOT_JSON = Symbol("not JSON");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function summarize(text: string, value: unknown, lines: string[]): Record<string, unknown> {
  const bytes = Buffer.byteLength(text, "utf8");
  if (value !== NOT_JSON) {
    const shape = describeShape(value, 0);
    const summary = { kind: "json", bytes, lines: lines.length, shape };
    if (jsonBytes(summary) <= SUMMARY_BYTES) return summary;
    return { kind: "json", bytes, lines: lines.length, shape: truncateBytes(JSON.stringify(shape), SUMMARY_BYTES - 200) };
  }
  let head = "";
  for (const line of lines) {
    const next = `${line.length > 200 ? `${line.slice(0, 200)}…` : line}\n`;
    if (Buffer.byteLength(head + next) > HEAD_BYTES) break;
    head += next;
  }
  return { kind: "text", bytes, lines: lines.length, head: head.trimEnd() };
}

/** Keys, array lengths and the first items, a few levels deep. */
function describeShape(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) {
    return depth >= 2 ? `array(${value.length})` : { array: value.length, ...(value.length ? { first: describeShape(value[0], depth + 1) } : {}) };
  }
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    if (depth >= 2) return `object(${keys.length} keys)`;
    const shown = keys.slice(0, 15).map((k) => [k, describeShape((value as Record<string, unknown>)[k], depth + 1)]);
    return { ...Object.fromEntries(shown), ...(keys.length > 15 ? { "…": `${keys.length - 15} more keys` } : {}) };
  }
  if (typeof value === "string") return value.length > 60 ? `${value.slice(0, 60)}… (${value.length} chars)` : value;
  return value;
}

function examplePath(value: unknown): string {
  if (Array.isArray(value)) return "$[0:10]";
  if (value && typeof value === "object") {
    const [key, inner] = Object.entries(value).sort((a, b) => jsonBytes(b[1]) - jsonBytes(a[1]))[0] ?? [];
    if (key !== undefined) return Array.isArray(inner) ? `${childPath("$", key)}[0:10]` : childPath("$", key);
  }
  return "$";
}
