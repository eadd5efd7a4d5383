/**
 * The three meta-tools are small modules of data: a name, a description,
 * an input schema and a handler over the app. `src/meta/index.ts` lists them.
 */
import type { Metatools } from "../app.js";
import type { ProgressUpdate } from "../backends/types.js";
import type { SpanNotes } from "../observe/telemetry.js";
import type { JsonSchema } from "../model/tool.js";

export interface MetaContext {
  app: Metatools;
  /** The largest response, in bytes, sent inline. */
  budget: number;
  signal?: AbortSignal;
  /** Set when the client asked for progress. */
  onProgress?: (update: ProgressUpdate) => void;
  /** The call's span: handlers add what only they know (cache status, hits). */
  span?: SpanNotes;
  /** Who the call is made for (src/security/principal.ts): whose cached results and output handles it may use. */
  principal: string;
}

/** A JSON response body. Expected failures are bodies too (`ok: false`); faults are thrown. */
export type MetaBody = Record<string, unknown>;

export interface MetaTool<A = Record<string, unknown>> {
  name: "search_tools" | "describe_tool" | "run_tool";
  /** Shown to the agent in tools/list: at most 300 characters. */
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  annotations: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; title?: string };
  /** Called with arguments already validated against `inputSchema`. */
  handle(args: A, context: MetaContext): Promise<MetaBody>;
}

/** Declares a meta-tool with its argument type, erased for the registry array. */
export function defineMetaTool<A>(tool: MetaTool<A>): MetaTool {
  return tool as unknown as MetaTool;
}
