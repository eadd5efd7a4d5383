/**
 * Every reply the three meta-tools give, as types: what an agent (or the
 * CLI) receives, declared once. Handlers return these; the CLI reads them.
 * Each reply carries the one envelope (`Envelope`: guidance, `next`,
 * `handle`…) at its top level, and every expected failure is a `Refusal`
 * (`ok: false`, src/disclosure/guidance.ts). Fields a reply never carries
 * are typed `never`, so a union of replies can be read field by field.
 * docs/responses.md describes the same shapes in words.
 */
import type { Envelope, NextCall, Refusal } from "../disclosure/guidance.js";
import type { MediaNote } from "../disclosure/media.js";
import type { OutputSummary } from "../disclosure/outputs.js";
import type { ExternalRef, JsonSchema, ToolAnnotations } from "../model/tool.js";
import type { SearchOutcome } from "../search/engine.js";
import type { QuarantineNote } from "../disclosure/guidance.js";

/** One search hit: enough to call a simple tool without describe_tool. */
export type SearchHitReply = {
  id: string;
  /** Left out when it says only what the tool's name says (`List of all Countries` for `…::List of all Countries`). */
  summary?: string;
  /** The compact call signature: `create_issue(owner*, repo*, title*, body?)`. */
  call: string;
  read_only?: true;
  destructive?: true;
  /** From a catalog-only tool list. */
  runnable?: false;
  /** Its backend is starting: the hit comes from the snapshot, and a run waits for the backend. */
  status?: "connecting" | "reconnecting";
};

/** A backend whose tools are missing from results now, and why. */
export type UnavailableBackend = {
  namespace: string;
  /** `failed`, `connecting`, `needs_config`, `needs_login` (or `not listed`, for the entry counting the rest). */
  status: string;
  error?: string;
  /** What a person must do: no retry helps until then. */
  fix?: string;
  /** When metatools tries it again. */
  retry_at?: string;
  /** The call to make once it is back (shaped as `next`, which only the top of a reply carries). */
  retry?: NextCall;
};

export type SearchReply = {
  ok?: never;
  /** The size of the full match set: exact, never a lower bound. */
  total: number;
  shown: number;
  /** Where the hits start: left out on the first page. */
  offset?: number;
  next_offset?: number;
  mode: SearchOutcome["mode"];
  /** No hit can be run: each is from a catalog-only tool list (said here once instead of on every hit). */
  runnable?: false;
  by_namespace?: { namespace: string; count: number }[];
  by_namespace_overflow?: number;
  hits: SearchHitReply[];
  /** Search is unsure of these hits: where the tool may be, each place with its tools' names (src/search/overview.ts). */
  map?: { namespace: string; group?: string; tools: string[]; more?: number }[];
  /** The namespaces served now, as the instructions name them: only when they changed since this session was last told (a backend came up after the handshake). */
  namespaces?: string;
  unavailable?: UnavailableBackend[];
} & Envelope;

/** A catalog example as describe_tool shows it: a ready call. */
export type DocExample = { title: string; call: { tool_id: string; args: Record<string, unknown> }; result?: string };

/** An example of a doc abridged to fit (describe_tool): parts nested too deep are notes of what was elided. */
export type AbridgedExample = string | { title: string; call: string | { tool_id: string; args: unknown }; result?: string };

/** One tool's docs, at the detail level asked for (src/meta/tool-doc.ts). */
export type ToolDoc<Example = DocExample> = {
  ok?: never;
  id: string;
  /** The backend's own name, when the served one is its safe spelling. */
  renamed?: string;
  title?: string;
  /** Left out (schema and full levels) when the description begins with it. */
  summary?: string;
  tags?: string[];
  annotations?: ToolAnnotations;
  runnable?: false;
  /** The call signature (summary level). */
  call?: string;
  description?: string;
  input_schema?: JsonSchema;
  output_schema?: JsonSchema;
  /** The tool as a TypeScript declaration (format "typescript"), in place of the two schemas. */
  declaration?: string;
  notes?: string;
  examples?: Example[];
  examples_total?: number;
  external_refs?: ExternalRef[];
  /** Said at full detail when the catalog has nothing for the tool. */
  catalog?: string;
  /** The catalog's text was written for another definition of the tool: it may be out of date. */
  catalog_drift?: string;
};

/** Docs cut down to fit the budget: nested parts deeper than a level are notes (`"… 12 keys elided (…)"`), and a `warning` says so. */
export type AbridgedDoc = ToolDoc<AbridgedExample>;

/** An id describe_tool did not find among several: the closest ids, or that it is held for a person. */
export type UnknownId = { id: string; did_you_mean: string[]; quarantine?: QuarantineNote };

/** describe_tool of one id. */
export type DescribeOne = (ToolDoc | AbridgedDoc) & Envelope;

/** describe_tool of several ids: those that fit the budget, then those that did not (`not_shown`, with `next`). */
export type DescribeMany = {
  ok?: never;
  tools: ToolDoc[];
  unknown?: UnknownId[];
  not_shown?: string[];
} & Envelope;

export type DescribeReply = DescribeOne | DescribeMany;

/** A content block that is neither text, media nor a link: a text resource whole, or its type. */
export type ContentNote = { type: "resource"; uri: string; mimeType?: string; text: string } | { type: string };

/** A resource link as the JSON lists it (its uri is metatools' own name for it). */
export type LinkNote = { uri: string; name: string; mimeType?: string };

/** The head of every run_tool reply that reached the tool. */
type Ran = { tool_id: string; duration_ms: number };

/** The tool answered. */
export type RanOk = { ok: true; error?: never; cache?: "hit"; cache_age_s?: number } & Ran;

/** The tool reported an error (`isError`): its text follows, as a result's would. */
export type RanToolError = { ok: false; error: { code: "tool_error"; message: string }; cache?: never; cache_age_s?: never } & Ran;

export type RunHead = RanOk | RanToolError;

/** What the tool returned: text, structured content, other blocks. */
type RunData = { result?: string; structured?: unknown; content?: ContentNote[] };

/** What travels beside the JSON, as the JSON lists it: media (sent, or kept under `media_handle`) and resource links. */
type RunAttachments = { media?: MediaNote[]; media_handle?: string; links?: LinkNote[] };

/** A result sent inline. A built-in tool's `handle` and `summary` (its own output over the budget) are lifted here. */
export type RunResult = RunHead & RunData & RunAttachments & Envelope & { summary?: unknown };

/** A result over the budget, stored under `handle`: the summary and the `next` call that reads it replace the data. */
export type RunHandedOff = RunHead & { [K in keyof RunData]?: never } & RunAttachments & Envelope & { handle: string; summary: OutputSummary };

/** A result over the budget that the output store could not take (`store_full`, `store_unavailable`). */
export type RunNotStored = Ran & { cache?: "hit"; cache_age_s?: number } & Refusal;

/** A built-in tool's own refusal, lifted to the top of run_tool's reply. */
export type RunRefusal = { tool_id: string } & Refusal;

/**
 * A backend's structured error (`isError` with `{ok: false, error: {code}}`)
 * lifted as run_tool's own: outside data, so its code is the backend's word
 * and anything else it holds is passed on as it came.
 */
export type ToolRefusal = { ok: false; tool_id: string; error: { code: string; message?: unknown }; [key: string]: unknown };

export type RunReply = RunResult | RunHandedOff | RunNotStored | RunRefusal | ToolRefusal | Refusal;

/** Each meta-tool's replies: an expected failure of any of them (bad arguments, over the budget) is a `Refusal`. */
export interface Replies {
  search_tools: SearchReply | Refusal;
  describe_tool: DescribeReply | Refusal;
  run_tool: RunReply;
}

export type MetaToolName = keyof Replies;

/** Any reply of a meta-tool. */
export type Reply = Replies[MetaToolName];
