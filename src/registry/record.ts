/**
 * Turns what a backend reports, plus the catalog entries that match, into
 * the ToolRecord every other part reads.
 *
 * A catalog entry may make a tool safer on its own word (`read_only:
 * false`, `destructive: true`), but less guarded only when it is vouched
 * for: its `written_for` is the tool's definition now, it names the tool by
 * a full id in a namespace the operator named, or the operator named the
 * server in the config (`serverName`). Matched on what a backend claims
 * alone (its tool name, its serverInfo.name), it never makes a tool
 * read-only or not destructive: a backend would only have to claim it is
 * the memory server.
 */
import type { LoadedEntry } from "../catalog/load.js";
import type { ToolRecord, UpstreamTool } from "../model/tool.js";
import { toolId } from "../model/tool.js";
import { definitionHash } from "../security/definition.js";
import { isGlob } from "../util/glob.js";

/** Longest summary shown in a search hit; the full description is one describe_tool away. */
export const SUMMARY_MAX = 160;

/**
 * `serverNamed`: the operator named the tool's server in the config (its entry's `serverName`), and the entries were
 * matched by that name: they are the operator's word, not the backend's.
 */
export function buildRecord(namespace: string, tool: UpstreamTool, entries: readonly LoadedEntry[], runnable: boolean, serverNamed = false): ToolRecord {
  const doc: Partial<LoadedEntry> = {};
  for (const entry of entries) Object.assign(doc, definedOnly(entry));
  const description = withoutControls(tool.description ?? "").trim();
  const title = tool.title === undefined ? undefined : withoutControls(tool.title).replace(/\s+/g, " ").trim();
  const { applied, unvouched } = catalogAnnotations(tool, entries, serverNamed);
  const annotations = { ...(tool.annotations ?? {}), ...applied };
  const tags = unique([...(tool.tags ?? []), ...entries.flatMap((e) => e.tags ?? [])]);
  return {
    id: toolId(namespace, tool.name),
    namespace,
    name: tool.name,
    title,
    summary: doc.summary ?? firstSentence(description) ?? title ?? tool.name,
    description,
    inputSchema: tool.inputSchema ?? { type: "object", properties: {} },
    outputSchema: tool.outputSchema,
    annotations,
    group: tool.group,
    tags,
    aliases: unique(entries.flatMap((e) => e.aliases ?? [])),
    ...(tool.hints ? { hints: tool.hints } : {}),
    notes: doc.notes,
    examples: doc.examples ?? [],
    externalRefs: doc.external_refs ?? [],
    cache: { policy: doc.cache?.policy ?? tool.cache ?? "auto", ttlMs: doc.cache?.ttl_ms },
    runnable,
    ...(entries.some((e) => e.everyday) ? { everyday: true as const } : {}),
    ...drift(tool, entries),
    ...(unvouched.length ? { catalogUnvouched: unvouched } : {}),
  };
}

/** What the entries say of read-only and destructive, each entry's word taken where it guards more, or where it is vouched for (above). */
function catalogAnnotations(
  tool: UpstreamTool,
  entries: readonly LoadedEntry[],
  serverNamed: boolean,
): { applied: Pick<ToolRecord["annotations"], "readOnlyHint" | "destructiveHint">; unvouched: string[] } {
  const out: Pick<ToolRecord["annotations"], "readOnlyHint" | "destructiveHint"> = {};
  const unvouched = new Set<string>();
  let hash: string | undefined;
  const vouched = (entry: LoadedEntry) =>
    (entry.server !== undefined && serverNamed) ||
    (entry.server === undefined && byOperatorsNamespace(entry.match)) ||
    (entry.written_for !== undefined && (hash ??= definitionHash(tool)).startsWith(entry.written_for));
  for (const entry of entries) {
    if (entry.read_only === false || (entry.read_only === true && vouched(entry))) out.readOnlyHint = entry.read_only;
    else if (entry.read_only === true) unvouched.add("read_only: true");
    if (entry.destructive === true || (entry.destructive === false && vouched(entry))) out.destructiveHint = entry.destructive;
    else if (entry.destructive === false) unvouched.add("destructive: false");
  }
  return { applied: out, unvouched: [...unvouched] };
}

/** A match by full id whose namespace part is a plain name (`files:read_*`, not `*:read_*`): the namespace is the operator's, not a backend's claim. */
function byOperatorsNamespace(match: string): boolean {
  const at = match.indexOf(":");
  return at > 0 && !isGlob(match.slice(0, at));
}

/** The first entry written for another definition of the tool than it has now (a hash prefix of at least 12 digits matches). */
function drift(tool: UpstreamTool, entries: readonly LoadedEntry[]): { catalogDrift?: ToolRecord["catalogDrift"] } {
  const written = entries.filter((e) => e.written_for !== undefined);
  if (!written.length) return {};
  const now = definitionHash(tool);
  const stale = written.find((e) => !now.startsWith(e.written_for!));
  return stale ? { catalogDrift: { writtenFor: stale.written_for!, now } } : {};
}

const PARAGRAPH_END = /\n\s*\n|\n(?=\s*[-*#])/;

/** The first sentence (or line) of a description, at most SUMMARY_MAX characters. */
export function firstSentence(text: string): string | undefined {
  // The first paragraph, whitespace runs made one space (most descriptions are one line already: no work).
  const paragraph = text.includes("\n") ? text.slice(0, PARAGRAPH_END.exec(text)?.index) : text;
  const firstLine = (/\s\s|[^\S ]/.test(paragraph) ? paragraph.replace(/\s+/g, " ") : paragraph).trim();
  if (!firstLine) return undefined;
  const match = /^.*?[.!?](?=\s|$)/.exec(firstLine);
  const sentence = match && match[0].length >= 12 ? match[0] : firstLine;
  return sentence.length <= SUMMARY_MAX ? sentence : `${sentence.slice(0, SUMMARY_MAX - 1).trimEnd()}…`;
}

/** Control characters (C0 but tab and newline, DEL, C1): in a terminal they move the cursor or fake output. */
function withoutControls(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "");
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
