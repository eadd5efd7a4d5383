/**
 * The three meta-tools are small modules of data: a name, a description,
 * their arguments (one zod object: the JSON Schema and the handler's type
 * both come from it) and a handler over the services of `services.ts`. `src/meta/index.ts` lists
 * them.
 */
import type { ApprovalOutcome } from "../model/approval.js";
import type { Attachment } from "../disclosure/outputs.js";
import type { ClientPeer } from "../model/peer.js";
import type { ProgressUpdate } from "../backends/types.js";
import type { SpanNotes } from "../observe/telemetry.js";
import type { JsonSchema } from "../model/tool.js";
import type { MetaServices } from "./services.js";
import type { MetaToolName, Replies, Reply } from "./reply.js";
import { argsJsonSchema, type ArgsOf, type ArgsSchema } from "../model/tool-args.js";

export interface MetaContext {
  /** What of the app a meta-tool may use. */
  services: MetaServices;
  /** The largest response, in bytes, sent inline. */
  budget: number;
  signal?: AbortSignal;
  /** Set when the client asked for progress. */
  onProgress?: (update: ProgressUpdate) => void;
  /** The call's span: handlers add what only they know (cache status, hits). */
  span?: SpanNotes;
  /** Who the call is made for (src/security/principal.ts): whose cached results and output handles it may use. */
  principal: string;
  /** The caller alone, under any profile (its token's principal, or the local user): what it teaches search is counted by this. */
  caller: string;
  /** The client the call came from: a backend's elicitation and sampling requests during a run go to it. */
  peer?: ClientPeer;
  /** The session the call belongs to (none from the CLI): what search learns joins a session's searches to its runs. */
  session?: string;
  /**
   * True when this session was last told something other than `key` under
   * `topic` (a summary of what it is told), remembering `key`: what need be
   * said once per session. Undefined without a session: say it every time.
   */
  changed?: (topic: string, key: string) => boolean;
  /** The caller's profile by name (src/security/profiles.ts); unset: the default profile. */
  profile?: string;
  /** A person typed this call at a terminal (`metatools run`): that is its approval. */
  typed?: boolean;
  /** What run_tool tells the dispatcher of a call, for the audit trail: filled in by the handler, read once it returns. */
  note?: RunNote;
  /** The dispatcher again, for this same caller (profile, client, session): what a program's search and describe go through. */
  again?: <N extends MetaToolName>(name: N, args: Record<string, unknown>) => Promise<MetaBody<Replies[N]>>;
}

export type { ApprovalOutcome };

/** What run_tool learned of one call that its reply does not carry. */
export interface RunNote {
  approval?: ApprovalOutcome;
  /** The program run the call belongs to (metatools:run_program): its own record and each of its calls' name it. */
  run?: string;
}

/**
 * MCP content a reply carries beside its JSON: a backend's images and
 * audio, resource links and embedded resources, sent as content blocks of
 * their own (the client shows or reads them as such). Kept under a symbol,
 * so no JSON encoding of the body (its text, its size) ever includes them.
 */
export const ATTACHED = Symbol("attached");

/** A reply (reply.ts) with the content sent beside its JSON. Expected failures are replies too (`ok: false`); faults are thrown. */
export type MetaBody<R extends Reply = Reply> = R & { [ATTACHED]?: Attachment[] };

interface MetaToolAbout<N extends MetaToolName = MetaToolName> {
  name: N;
  /** Shown to the agent in tools/list: at most 300 characters. */
  description: string;
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; title?: string };
  /** Properties shown in tools/list in a shorter form than they are accepted (search's namespace: a string, though a list is taken too). */
  listedAs?: Record<string, JsonSchema>;
}

/** A meta-tool as written. */
export interface MetaToolSpec<S extends ArgsSchema, N extends MetaToolName> extends MetaToolAbout<N> {
  /** What arguments are validated against: every limit, and options agents seldom need (`advertised` leaves those out). */
  args: S;
  /** Properties accepted but not shown in tools/list: options a hint names when they help (search's mode, describe's examples_max). */
  unlisted?: (keyof S["shape"] & string)[];
  /** Called with arguments already validated against `args`. */
  handle(args: ArgsOf<S>, context: MetaContext): Promise<MetaBody<Replies[N]>>;
}

/** A meta-tool as the server lists and calls it. */
export interface MetaTool<N extends MetaToolName = MetaToolName> extends MetaToolAbout<N> {
  inputSchema: JsonSchema & { type: "object" };
  /**
   * True when `args` match: the zod schema `inputSchema` is made from, which
   * checks a call without compiling a validator (ajv takes about 20 ms for
   * search_tools' schema, at the first call of every CLI command). Only a
   * refusal needs the JSON Schema, whose words explain it.
   */
  accepts(args: Record<string, unknown>): boolean;
  unlisted?: string[];
  handle(args: Record<string, unknown>, context: MetaContext): Promise<MetaBody<Replies[N]>>;
}

/**
 * The schema shown in tools/list: the validated one without its unlisted
 * properties, and without the limits that only guard against hostile input
 * (string and array lengths, closed objects): every session pays for each
 * token of it, and a call that breaks a limit is told so anyway.
 */
export function advertisedSchema(tool: MetaTool): JsonSchema {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (!GUARD_KEYWORDS.has(key)) out[key] = strip(item);
    return out;
  };
  const schema = strip(tool.inputSchema) as JsonSchema;
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  for (const name of tool.unlisted ?? []) delete properties[name];
  for (const [name, shown] of Object.entries(tool.listedAs ?? {})) if (name in properties) properties[name] = shown;
  return { ...schema, properties };
}

const GUARD_KEYWORDS = new Set(["maxLength", "maxItems", "minItems", "additionalProperties"]);

export function defineMetaTool<S extends ArgsSchema, N extends MetaToolName>({ args, handle, ...about }: MetaToolSpec<S, N>): MetaTool<N> {
  // The server validated the arguments against the JSON Schema made from `args` before any call reaches the handler.
  return {
    ...about,
    inputSchema: argsJsonSchema(args),
    accepts: (value) => args.safeParse(value).success,
    handle: (value, context) => handle(value as ArgsOf<S>, context),
  };
}
