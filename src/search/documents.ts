/**
 * What the BM25 index sees of a tool: summary-level text only, one field per
 * source so each can carry its own boost. Schemas beyond parameter names and
 * their descriptions stay out: they add noise, not recall.
 */
import { propertiesOf } from "../model/signature.js";
import type { JsonSchema, ToolRecord } from "../model/tool.js";
import { isAscii, isAsciiAlnum } from "../text/analyze.js";
import { TUNING } from "./tuning.js";

export const SEARCH_FIELDS = ["name", "namespace", "group", "title", "summary", "description", "tags", "aliases", "hints", "params", "paramDocs"] as const;

export type SearchField = (typeof SEARCH_FIELDS)[number];

/** `prior`: the score multiplier the index is built with (bm25.ts priorOf), part of what a kept index is keyed by. */
export type SearchDocument = { id: string; prior?: number } & Record<SearchField, string>;

export function toDocument(record: ToolRecord): SearchDocument {
  const properties = propertiesOf(record.inputSchema);
  const paramDocs = Object.values(properties).map(paramText).filter(Boolean).join(" | ");
  const prior = priorOf(record);
  return {
    id: record.id,
    ...(prior !== 1 ? { prior } : {}),
    name: record.name,
    namespace: record.namespace,
    group: record.group ?? "",
    title: record.title ?? "",
    summary: record.summary,
    description: record.description,
    tags: record.tags.join(" "),
    aliases: record.aliases.join(" "),
    hints: record.hints ?? "",
    params: Object.keys(properties).join(" "),
    paramDocs,
  };
}

/** What a parameter says about the tool: its description, and the values it names (enum, default, examples). */
function paramText(schema: JsonSchema): string {
  const parts: string[] = [];
  if (typeof schema.description === "string") parts.push(schema.description);
  const values = [...(Array.isArray(schema.enum) ? schema.enum : []), schema.default, ...(Array.isArray(schema.examples) ? schema.examples : [])];
  for (const value of values) if (typeof value === "string" && value.length <= 60) parts.push(value);
  return parts.join(" | ");
}

/**
 * What the semantic index embeds of a tool: its words and its parameters'
 * names, not its schema (names say what a tool takes: `symbol`, `zip_code`;
 * +1.5 points of the semantic leg's nDCG@10 on apigen). Identifiers are
 * split by the embedder. A word said more than TUNING.embedRepeatCap times is
 * said that many (tuning.ts): a text's vector sums its words', so a
 * description repeating a request's words fifty times would point at it.
 */
export function embeddingText(
  record: Pick<ToolRecord, "name" | "title" | "group" | "summary" | "description" | "tags" | "aliases" | "hints"> & { inputSchema?: JsonSchema },
): string {
  const params = record.inputSchema ? Object.keys(propertiesOf(record.inputSchema)).join(" ") : "";
  const text = [
    record.name,
    record.title,
    record.group,
    record.summary,
    record.description,
    record.tags.join(" "),
    record.aliases.join(" "),
    record.hints,
    params,
  ]
    .filter(Boolean)
    .join(". ");
  return capRepeats(text, TUNING.embedRepeatCap);
}

/** `text` with each word (case aside) kept its first `max` times; the text itself when no word is said more often. */
export function capRepeats(text: string, max: number): string {
  if (!isAscii(text)) return capRepeatsByPattern(text, max);
  // ASCII text (the common case, and 10,000 tools' texts at a start from the snapshot): words found by hand, as the pattern would.
  const seen = new Map<string, number>();
  let parts: string[] | undefined;
  let last = 0;
  for (let i = 0; i < text.length;) {
    if (!isAsciiAlnum(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && isAsciiAlnum(text.charCodeAt(end))) end++;
    const key = text.slice(i, end).toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n > max) {
      (parts ??= []).push(text.slice(last, i));
      last = end;
    }
    i = end;
  }
  if (!parts) return text;
  parts.push(text.slice(last));
  return parts.join("").replace(/[ \t]{2,}/g, " ");
}

/** capRepeats by the pattern, for text in any script: the reference the ASCII path agrees with. */
export function capRepeatsByPattern(text: string, max: number): string {
  const seen = new Map<string, number>();
  let dropped = false;
  const kept = text.replace(/[\p{L}\p{N}]+/gu, (word) => {
    const key = word.toLowerCase();
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    if (n <= max) return word;
    dropped = true;
    return "";
  });
  return dropped ? kept.replace(/[ \t]{2,}/g, " ") : text;
}

/** What a tool's score is multiplied by, in every signal: a deprecated tool's is lowered, the everyday one of its siblings' raised. */
export function priorOf(record: ToolRecord): number {
  return isDeprecated(record) ? TUNING.deprecatedPrior : record.everyday ? TUNING.everydayPrior : 1;
}

/** Deprecated tools still answer searches for them, below the tools that replace them. */
export function isDeprecated(record: ToolRecord): boolean {
  return (
    record.tags.some((t) => t.toLowerCase() === "deprecated") ||
    /\bdeprecated\b/i.test(record.summary) ||
    /^\s*deprecated\b|\bdeprecated:/i.test(record.description)
  );
}
