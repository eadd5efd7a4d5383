/**
 * Output handles: a result too big to send inline is kept server-side under
 * an opaque handle (`@out_…`), and the agent gets a compact summary plus the
 * exact call that reads a slice of it (`metatools:read_output`). Outputs
 * live in the key-value store (memory, Redis or SQLite), so replicas that
 * share a Redis share handles. A handle belongs to the principal it was made
 * for: anyone else asking for it finds nothing, exactly as for a handle that
 * never existed, so a handle's id alone gives no access.
 */
import { randomBytes } from "node:crypto";
import { jsonBytes, truncateBytes } from "./budget.js";
import { indentJson } from "../util/json-indent.js";
import { childPath } from "../util/json-path.js";
import { formatCall, type NextCall } from "./guidance.js";
import type { KeyValue } from "../store/kv.js";
import type { Attachment } from "./media.js";

export interface StoredOutput {
  kind: "text" | "json" | "media";
  /** Text as produced; JSON pretty-printed (two spaces), so line ranges read naturally. For media, what each piece is (JSON). */
  text: string;
  /** What produced it, e.g. `code:read_file src/app.ts`, for messages. */
  source: string;
  /** Kind "media": the images, audio and binary resources, as MCP content blocks (media.ts). */
  media?: Attachment[];
}

export interface OutputStore {
  /** Stores an output for `owner` and returns its new handle. Rejects with a StoreError when the store cannot take it. */
  put(output: StoredOutput, owner: string): Promise<string>;
  /** The output, or undefined once it expired, if it never existed, or if `owner` did not make it. */
  get(handle: string, owner: string): Promise<StoredOutput | undefined>;
  /** How long a handle lives, for messages. */
  readonly ttlMs: number;
  /** Largest output kept. */
  readonly maxBytes: number;
}

export const HANDLE_PATTERN = /^@out_[A-Za-z0-9_-]{8,64}$/;
export const READ_OUTPUT_ID = "metatools:read_output";

export interface OutputStoreOptions {
  /** How long a handle lives. Default 30 minutes. */
  ttlMs?: number;
  /** Largest output kept; `spill` keeps the first lines of a longer one and says so. Default 16 MiB. */
  maxBytes?: number;
}

/**
 * Outputs kept in the shared key-value store, so a handle made by one
 * replica reads the same through any other that shares the store.
 */
export class KeyValueOutputStore implements OutputStore {
  readonly ttlMs: number;
  readonly maxBytes: number;

  constructor(
    private readonly store: KeyValue,
    options: OutputStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
    this.maxBytes = options.maxBytes ?? 16 << 20;
  }

  async put(output: StoredOutput, owner: string): Promise<string> {
    const handle = `@out_${randomBytes(12).toString("base64url")}`;
    await this.store.set(ownedKey(owner, handle), output, this.ttlMs);
    return handle;
  }

  get(handle: string, owner: string): Promise<StoredOutput | undefined> {
    return this.store.get<StoredOutput>(ownedKey(owner, handle));
  }
}

/** The owner is part of the key, so another principal's lookup is a plain miss: no separate check to get wrong. */
function ownedKey(owner: string, handle: string): string {
  return `${owner}/${handle}`;
}

const SUMMARY_BYTES = 2000;
const HEAD_BYTES = 1200;
/** A JSON text with a line longer than this is stored pretty-printed, so line ranges can read it. */
const LONG_LINE = 1000;

/**
 * Stores an oversized output and returns the response fields that replace
 * it: `handle` (readable by `owner` only), a structure-aware `summary`
 * (≤ 2 KB), and `next`, a call that reads the first slice that fits
 * `budget`. Text that parses as JSON is treated as JSON (summary by shape,
 * reads by JSON path). An output over the store's size bound keeps its
 * first lines, and the hint says how much was dropped.
 */
export async function spill(
  store: OutputStore,
  output: StoredOutput,
  budget: number,
  owner: string,
): Promise<{ handle: string; summary: Record<string, unknown>; next: NextCall; hint: string }> {
  let value = output.kind === "json" || /^\s*[[{]/.test(output.text) ? parseJson(output.text) : NOT_JSON;
  let text = output.text;
  if (value !== NOT_JSON && text.split("\n", 200).some((line) => line.length > LONG_LINE)) text = indentJson(text);
  let lines = text.split("\n");
  const summary = summarize(text, value, lines);
  let dropped = "";
  if (Buffer.byteLength(text, "utf8") > store.maxBytes) {
    const keep = linesThatFit(lines, 1, store.maxBytes);
    lines = lines.slice(0, keep);
    text = lines.join("\n");
    let kept = `lines 1-${keep} of ${summary.lines}`;
    // linesThatFit keeps at least one line: a first line alone over the bound is cut by bytes.
    if (Buffer.byteLength(text, "utf8") > store.maxBytes) {
      lines = [(text = truncateBytes(text, store.maxBytes))];
      kept = `the first ${store.maxBytes} bytes of ${summary.lines === 1 ? "its only line" : "line 1"}`;
    }
    dropped = ` Only ${kept} are kept (the store holds at most ${store.maxBytes} bytes per output); narrow the original call for the rest.`;
    value = NOT_JSON;
  }
  const handle = await store.put({ kind: value === NOT_JSON ? "text" : "json", text, source: output.source }, owner);
  const end = linesThatFit(lines, 1, Math.floor(budget * 0.75));
  const next: NextCall = { tool: "run_tool", arguments: { tool_id: READ_OUTPUT_ID, args: { handle, start_line: 1, end_line: end } } };
  const ways = value !== NOT_JSON ? `a JSON path (args.json_path, e.g. "${examplePath(value)}"), ` : "";
  const hint = `The full output (${summary.bytes} bytes, ${summary.lines} lines) is stored as ${handle} for ${Math.round(store.ttlMs / 60_000)} minutes.${dropped} Read it in slices by line range, ${ways}or grep (args.grep): ${formatCall(next)}`;
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
    // As deep as fits: keys, array lengths and the first item's own shape, shallower for wide documents.
    for (const depth of [4, 3, 2, 1]) {
      const summary = { kind: "json", bytes, lines: lines.length, shape: describeShape(value, 0, depth) };
      if (jsonBytes(summary) <= SUMMARY_BYTES) return summary;
    }
    return { kind: "json", bytes, lines: lines.length, shape: truncateBytes(JSON.stringify(describeShape(value, 0, 1)), SUMMARY_BYTES - 200) };
  }
  let head = "";
  for (const line of lines) {
    const next = `${line.length > 200 ? `${line.slice(0, 200)}…` : line}\n`;
    if (Buffer.byteLength(head + next) > HEAD_BYTES) break;
    head += next;
  }
  return { kind: "text", bytes, lines: lines.length, head: head.trimEnd() };
}

/** Keys, array lengths and the first items, down to `maxDepth` levels. */
function describeShape(value: unknown, depth: number, maxDepth: number): unknown {
  if (Array.isArray(value)) {
    if (depth >= maxDepth) return `array(${value.length})`;
    return { array: value.length, ...(value.length ? { first: describeShape(value[0], depth + 1, maxDepth) } : {}) };
  }
  if (value && typeof value === "object") {
    const keys = Object.keys(value);
    if (depth >= maxDepth) return `object(${keys.length} keys)`;
    const shown = keys.slice(0, 15).map((k) => [k, describeShape((value as Record<string, unknown>)[k], depth + 1, maxDepth)]);
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
