/**
 * The tool record: one upstream tool as metatools knows it, after the catalog
 * has been merged in. Everything downstream (search, describe, run) reads this
 * shape and nothing else, so a new kind of backend only has to produce it.
 */

/** A JSON Schema object as reported by a backend (draft-07 or 2020-12). */
export type JsonSchema = { [key: string]: unknown };

/** MCP tool annotations, as hints; absent means unknown, never false. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A worked example from the catalog: the arguments and what comes back. */
export interface ToolExample {
  title: string;
  args: Record<string, unknown>;
  /** What the result looks like, in words or an abbreviated sample. */
  result?: string;
}

/** A link to documentation outside metatools. */
export interface ExternalRef {
  title: string;
  url: string;
}

/** Whether run_tool may cache a tool's results. `auto` trusts the annotations. */
export type CachePolicy = "auto" | "always" | "never";

/** What a backend reports for one tool, before the catalog is applied. */
export interface UpstreamTool {
  /** The tool's name on its backend, unique within the backend. */
  name: string;
  title?: string;
  description?: string;
  inputSchema?: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  /**
   * A sub-grouping inside the backend, indexed for search: the upstream API
   * or service a tool belongs to (a catalog-only dataset's `server` field).
   */
  group?: string;
  /** Extra labels the backend knows (a dataset's category, say). */
  tags?: string[];
  /** The backend's own word on caching its results (built-in tools say never); a catalog entry overrides it. */
  cache?: CachePolicy;
  /** Words the server offers for finding the tool (`_meta["anthropic/searchHint"]`), indexed for search, never shown. */
  hints?: string;
}

/** One tool, identified as `namespace:name`, enriched by the catalog. */
export interface ToolRecord {
  /** `namespace:name`; stable across restarts. */
  id: string;
  namespace: string;
  name: string;
  title?: string;
  /** One line, for search hits: the catalog's summary or the first sentence of the description. */
  summary: string;
  /** The backend's description, whole. */
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  group?: string;
  tags: string[];
  /** Extra search terms from the catalog. */
  aliases: string[];
  /** Search words the server offers for the tool (UpstreamTool.hints); never shown. */
  hints?: string;
  notes?: string;
  examples: ToolExample[];
  externalRefs: ExternalRef[];
  cache: { policy: CachePolicy; ttlMs?: number };
  /** False for catalog-only tools, which can be searched and described but not run. */
  runnable: boolean;
  /** A catalog says it is the one plain words mean among its siblings (catalog `everyday`): search ranks it a step ahead. */
  everyday?: true;
  /** The backend's own name, when it is not a valid MCP tool name and `name` is its safe spelling (registry/names.ts). */
  upstreamName?: string;
  /** A catalog entry was written for another definition of this tool (its `written_for`), and the hash it has now. */
  catalogDrift?: { writtenFor: string; now: string };
  /** What its catalog entries say that would make it less guarded, and that nothing vouched for, so it was not applied (registry/record.ts). */
  catalogUnvouched?: string[];
  /** What the gate admitted it as: its definition's hash and the terms it is served on (security/terms.ts), as one text. An approval a person gives is for this. */
  seal?: string;
}

/** A tool id's namespace: what comes before its first colon; undefined when it has none. */
export function namespaceOf(id: string): string | undefined {
  const at = id.indexOf(":");
  return at < 0 ? undefined : id.slice(0, at);
}

/** Splits a tool id at its first colon; namespaces never contain one. */
export function splitToolId(id: string): { namespace: string; name: string } | undefined {
  const at = id.indexOf(":");
  if (at <= 0 || at === id.length - 1) return undefined;
  return { namespace: id.slice(0, at), name: id.slice(at + 1) };
}

export function toolId(namespace: string, name: string): string {
  return `${namespace}:${name}`;
}
