/**
 * A tool's documentation at one of three levels: summary (what it is),
 * schema (how to call it), full (how to use it well: notes, examples, refs).
 */
import { declaration } from "../model/declaration.js";
import { callSignature, saysMore } from "../model/signature.js";
import type { JsonSchema, ToolRecord } from "../model/tool.js";
import { renameNote } from "../registry/names.js";
import type { AbridgedDoc, AbridgedExample, ToolDoc } from "./reply.js";

export const DETAIL_LEVELS = ["summary", "schema", "full"] as const;
export type DetailLevel = (typeof DETAIL_LEVELS)[number];

/** How the schema and full levels show the arguments and the result: as JSON Schemas, or one TypeScript declaration. */
export const DOC_FORMATS = ["json_schema", "typescript"] as const;
export type DocFormat = (typeof DOC_FORMATS)[number];

export function toolDoc(record: ToolRecord, level: DetailLevel, examplesMax: number, format: DocFormat = "json_schema"): ToolDoc {
  const annotations = Object.fromEntries(Object.entries(record.annotations).filter(([, v]) => v !== undefined));
  const doc: ToolDoc = {
    // The id holds the namespace and the name; a title that only repeats the summary or the name is left out.
    id: record.id,
    ...(record.upstreamName !== undefined ? { renamed: renameNote(record.upstreamName, record.name) } : {}),
    ...(record.title && record.title !== record.summary && saysMore(record.title, record.name) ? { title: record.title } : {}),
    summary: record.summary,
    ...(record.tags.length ? { tags: record.tags } : {}),
    ...(Object.keys(annotations).length ? { annotations } : {}),
    ...(record.runnable ? {} : { runnable: false }),
    ...(record.catalogDrift
      ? {
          catalog_drift:
            "the catalog's summary, notes and examples for this tool were written for an earlier definition of it and may be out of date; its description and schema are its own",
        }
      : {}),
  };
  if (level === "summary") {
    // Without a schema at this level, the signature says how to call it; the other levels give the schema itself.
    doc.call = callSignature(record.name, record.inputSchema);
    const paragraph = firstParagraph(record.description);
    if (paragraph && paragraph !== record.summary) doc.description = paragraph;
    return doc;
  }
  if (record.description && record.description !== record.summary) {
    doc.description = record.description;
    // A summary that is the description's first words is said once, by the description.
    if (record.description.startsWith(record.summary.replace(/…$/, "").trimEnd())) delete doc.summary;
  }
  if (format === "typescript") doc.declaration = declaration(record);
  else {
    doc.input_schema = record.inputSchema;
    if (record.outputSchema) doc.output_schema = record.outputSchema;
  }
  if (level === "schema") return doc;
  if (record.notes) doc.notes = record.notes;
  if (record.examples.length) {
    doc.examples = record.examples
      .slice(0, examplesMax)
      .map((e) => ({ title: e.title, call: { tool_id: record.id, args: e.args }, ...(e.result ? { result: e.result } : {}) }));
    if (record.examples.length > examplesMax) doc.examples_total = record.examples.length;
  }
  if (record.externalRefs.length) doc.external_refs = record.externalRefs;
  if (!record.notes && !record.examples.length && !record.externalRefs.length) doc.catalog = "no curated docs for this tool yet";
  return doc;
}

function firstParagraph(text: string): string {
  return (text.split(/\n\s*\n/)[0] ?? "").trim();
}

/**
 * Docs cut down to fit: their schemas and examples abridged to `depth`
 * (`depth` ≥ 1, so each stays an object or a list), each in its place.
 */
export function abridgeDoc(doc: ToolDoc, depth: number): AbridgedDoc {
  return {
    ...doc,
    // Objects at depth ≥ 1 stay objects (their deeper values notes): still JSON Schemas.
    ...(doc.input_schema ? { input_schema: abridge(doc.input_schema, depth) as JsonSchema } : {}),
    ...(doc.output_schema ? { output_schema: abridge(doc.output_schema, depth) as JsonSchema } : {}),
    ...(doc.examples ? { examples: abridge(doc.examples, depth) as AbridgedExample[] } : {}),
  };
}

/**
 * A schema cut down to fit: subtrees below `depth` become a note of what was
 * elided, never silently dropped. Depth counts object nesting from the root.
 */
export function abridge(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return depth <= 0 ? `… ${value.length} items elided` : value.map((v) => abridge(v, depth - 1));
  if (value && typeof value === "object") {
    const entries = Object.entries(value);
    if (depth <= 0)
      return `… ${entries.length} keys elided (${entries
        .slice(0, 5)
        .map(([k]) => k)
        .join(", ")}${entries.length > 5 ? ", …" : ""})`;
    return Object.fromEntries(entries.map(([k, v]) => [k, abridge(v, depth - 1)]));
  }
  return value;
}
