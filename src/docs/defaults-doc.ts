/**
 * The defaults docs/configuration.md shows, made from `DEFAULTS`: the block
 * of every default between its markers, and the "default" cell of each row
 * of the `metatools` table whose fields all have a constant default (a row
 * like `code.root`, whose default is "the working directory", keeps its
 * words). `npm run generate` writes them; a test fails when they are stale.
 */
import { DEFAULTS } from "../config/defaults.js";

const BEGIN = "<!-- defaults:begin -->";
const END = "<!-- defaults:end -->";

/** What the config file can set, in the order the guide lists it (not the tools' own defaults, nor the limits no setting changes). */
function configurable(): Record<string, unknown> {
  // transformers and openai are embedder types' own defaults (fields of search.embedder when it names one), not sections.
  const { search, transformers: _t, openai: _o, describe: _d, code, ...rest } = DEFAULTS;
  // The semantic weight is the embedder's own; the one here is for embedders that name none.
  const {
    maxLimit: _m,
    fusion: { semanticWeight: _w, ...fusion },
    ...searchSection
  } = search;
  const { maxBytes: _b, ...codeSection } = code;
  return { search: { ...searchSection, fusion }, ...rest, code: codeSection };
}

export function configurationWithDefaults(doc: string): string {
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md needs the markers ${BEGIN} and ${END} around its block of defaults`);
  const sections = Object.entries(configurable()).map(([key, value]) => `  "${key}": ${inline(value)}`);
  const block = ["```json", '"metatools": {', sections.join(",\n"), "}", "```"].join("\n");
  const withBlock = `${doc.slice(0, start + BEGIN.length)}\n${block}\n${doc.slice(end)}`;
  return withBlock.replace(/^\| ((?:`[^`|]+`(?:, )?)+) \| ([^|]*) \|/gm, (row: string, fields: string) => {
    const values = [...fields.matchAll(/`([^`]+)`/g)].map((m) => leaf(m[1]!));
    if (!values.length || values.some((v) => v === undefined)) return row;
    return `| ${fields} | ${values.map(cell).join(", ")} |`;
  });
}

/** The default at `path` (`search.defaultLimit`), when it is one constant. */
function leaf(path: string): unknown {
  let node: unknown = configurable();
  for (const key of path.split(".")) {
    if (!node || typeof node !== "object" || Array.isArray(node) || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function cell(value: unknown): string {
  return typeof value === "number" ? String(value) : typeof value === "string" ? `\`${value}\`` : `\`${inline(value)}\``;
}

/** JSON on one line, with a space inside braces and after colons and commas, as the guide writes it. */
function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(", ")}]`;
  if (value && typeof value === "object")
    return `{ ${Object.entries(value)
      .map(([k, v]) => `"${k}": ${inline(v)}`)
      .join(", ")} }`;
  return JSON.stringify(value);
}
