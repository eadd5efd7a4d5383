/**
 * Output handles: a result too big to send inline is kept server-side under
 * an opaque handle (`@out_…`), and the agent gets a compact summary plus the
 * exact call that reads a slice of it (`metatools:read_output`). Outputs
 * live in the key-value store (memory, Redis or SQLite), so replicas that
 * share a Redis share handles. A handle belongs to the principal it was made
 * for: anyone else asking for it finds nothing, exactly as for a handle that
 * never existed, so a handle's id alone gives no access. Each principal has
 * its own share of the store (store/quota.ts): its oldest outputs make room
 * for its newer ones, and no one else's ever do.
 */
import type { AudioContent, EmbeddedResource, ImageContent, ResourceLink } from "@modelcontextprotocol/sdk/types.js";
import { randomBytes } from "node:crypto";
import { jsonBytes, truncateBytes } from "./budget.js";
import { indentJson } from "../util/json-indent.js";
import { childPath } from "../util/json-path.js";
import { formatCall, type NextCall } from "./guidance.js";
import { ENTRY_OVERHEAD, sizeWords, type QuotaStore } from "../store/quota.js";

/** MCP content a reply carries beside its JSON (media.ts): images, audio, resources and links to them. */
export type Attachment = ImageContent | AudioContent | ResourceLink | EmbeddedResource;

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
  /**
   * Stores an output for `owner`, evicting the owner's own oldest outputs when its share of the store needs room
   * (never another owner's). Rejects with a StoreError: `store_full` when the store cannot take it without taking
   * another owner's room, `store_unavailable` when the store fails.
   */
  put(output: StoredOutput, owner: string): Promise<KeptOutput>;
  /** The output, or why there is none. Another owner's handle is `missing`, exactly as one that never existed. */
  get(handle: string, owner: string): Promise<OutputLookup>;
  /** How long a handle lives, for messages. */
  readonly ttlMs: number;
  /** Largest output kept. */
  readonly maxBytes: number;
}

export interface KeptOutput {
  handle: string;
  /** Bytes of further outputs its owner can store before this one may be evicted to make room. */
  room: number;
  /** Bytes one owner's outputs may take together (metatools.outputs.principalBytes). */
  ownerBytes: number;
}

export type OutputLookup =
  | { kind: "found"; output: StoredOutput }
  /** Evicted for room by its owner's later outputs (`evicted`), or dropped by the store itself before its time (`dropped`). */
  | { kind: "evicted" | "dropped"; ownerBytes: number }
  /** Expired, never made, made for another owner, or by a server that does not share this store. */
  | { kind: "missing" };

/** What a reply says of a stored output: its size, and its shape (JSON) or its first lines (text). */
export type OutputSummary = { kind: "json" | "text"; bytes: number; lines: number; shape?: unknown; head?: string };

export const HANDLE_PATTERN = /^@out_[A-Za-z0-9_-]{8,64}$/;
export const READ_OUTPUT_ID = "metatools:read_output";

export interface OutputStoreOptions {
  /** How long a handle lives. Default 30 minutes. */
  ttlMs?: number;
  /** Largest output kept; `spill` keeps the first lines of a longer one and says so. Default 16 MiB, and at most what one owner may keep. */
  maxBytes?: number;
}

/**
 * Outputs kept in the shared quota store, so a handle made by one replica
 * reads the same through any other that shares the store, and one caller's
 * outputs never push out another's.
 */
export class KeyValueOutputStore implements OutputStore {
  readonly ttlMs: number;
  readonly maxBytes: number;

  constructor(
    private readonly store: QuotaStore,
    options: OutputStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 30 * 60_000;
    // An output is stored whole with its source and JSON quoting: leave that room inside one owner's share.
    this.maxBytes = Math.max(1024, Math.min(options.maxBytes ?? 16 << 20, Math.floor((store.limits.ownerBytes - ENTRY_OVERHEAD) / 2)));
  }

  async put(output: StoredOutput, owner: string): Promise<KeptOutput> {
    const handle = `@out_${randomBytes(12).toString("base64url")}`;
    const { room } = await this.store.put(owner, handle, output, this.ttlMs);
    return { handle, room, ownerBytes: this.store.limits.ownerBytes };
  }

  async get(handle: string, owner: string): Promise<OutputLookup> {
    const found = await this.store.get<StoredOutput>(owner, handle);
    if (found.kind === "found") return { kind: "found", output: found.value };
    if (found.kind === "missing") return found;
    return { kind: found.kind, ownerBytes: this.store.limits.ownerBytes };
  }
}

/**
 * The store counts an output as it takes room (its JSON, rounded up to an
 * allocator's size class: up to a quarter more, plus bookkeeping); a reply
 * reports an output's own bytes. The room a reply promises is the store's
 * divided by this, so outputs of the sizes replies report fit in it: a
 * soak that trusted the undivided figure lost 7 of 110 handles early.
 */
const PROMISE_MARGIN = 1.375;

/** How long a handle is kept, as the store can keep it: its time, and the room its owner's later outputs have before it goes. */
export function lifetimeWords(store: OutputStore, kept: KeptOutput): string {
  const room = Math.max(0, Math.floor(kept.room / PROMISE_MARGIN));
  return `for ${Math.round(store.ttlMs / 60_000)} minutes, or until you store more than ${sizeWords(room)} of further outputs (each caller keeps at most ${sizeWords(kept.ownerBytes)}; its oldest go first)`;
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
): Promise<{ handle: string; summary: OutputSummary; next: NextCall; hint: string }> {
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
  const kept = await store.put({ kind: value === NOT_JSON ? "text" : "json", text, source: output.source }, owner);
  const handle = kept.handle;
  const end = linesThatFit(lines, 1, Math.floor(budget * 0.75));
  const next: NextCall = { tool: "run_tool", arguments: { tool_id: READ_OUTPUT_ID, args: { handle, start_line: 1, end_line: end } } };
  const ways = value !== NOT_JSON ? `a JSON path (args.json_path, e.g. "${examplePath(value)}"), ` : "";
  const hint = `The full output (${summary.bytes} bytes, ${summary.lines} lines) is stored as ${handle} ${lifetimeWords(store, kept)}.${dropped} Read it in slices by line range, ${ways}or grep (args.grep): ${formatCall(next)}`;
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

function summarize(text: string, value: unknown, lines: string[]): OutputSummary {
  const bytes = Buffer.byteLength(text, "utf8");
  if (value !== NOT_JSON) {
    // As deep as fits: keys, array lengths and the first item's own shape, shallower for wide documents.
    for (const depth of [4, 3, 2, 1]) {
      const summary: OutputSummary = { kind: "json", bytes, lines: lines.length, shape: describeShape(value, 0, depth) };
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
