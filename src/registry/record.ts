/**
 * Turns what a backend reports, plus the catalog entries that match, into
 * the ToolRecord every other part reads.
 */
import type { LoadedEntry } from "../catalog/load.js";
import type { ToolRecord, UpstreamTool } from "../model/tool.js";
import { toolId } from "../model/tool.js";
import { definitionHash } from "../security/definition.js";

/** Longest summary shown in a search hit; the full description is one describe_tool away. */
export const SUMMARY_MAX = 160;

export function buildRecord(namespace: string, tool: UpstreamTool, entries: readonly LoadedEntry[], runnable: boolean): ToolRecord {
  const doc: Partial<LoadedEntry> = {};
  for (const entry of entries) Object.assign(doc, definedOnly(entry));
  const description = withoutControls(tool.description ?? "").trim();
  const title = tool.title === undefined ? undefined : withoutControls(tool.title).replace(/\s+/g, " ").trim();
  const annotations = { ...(tool.annotations ?? {}) };
  if (doc.read_only !== undefined) annotations.readOnlyHint = doc.read_only;
  if (doc.destructive !== undefined) annotations.destructiveHint = doc.destructive;
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
    ...drift(tool, entries),
  };
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
