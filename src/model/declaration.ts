/**
 * A tool as a compact TypeScript declaration, for agents that write
 * programs (`describe_tool({format: "typescript"})`): one line per
 * parameter, required ones without `?`, enums as unions of literals, a
 * default or a description as the line's comment, and the result's shape
 * when the tool has an output schema (what `tools.call` resolves to).
 *
 *   /** Read a text file, whole or only its first or last N lines. *\/
 *   function read_text_file(args: {
 *     path: string;
 *     head?: number; // If provided, returns only the first N lines of the file
 *   }): Promise<{ content: string }>; // tools.call("files:read_text_file", args)
 *
 * Nested types are written inline up to a few levels and a bounded length,
 * past which they are `object` or `unknown[]` (the schema, at detail_level
 * schema, has the rest). Words from the schema are one line each, without
 * control characters, and cannot end a comment.
 */
import { propertiesOf, requiredOf } from "./signature.js";
import type { JsonSchema } from "./tool.js";

/** How deep an inline type is written before it is `object`. */
const MAX_DEPTH = 3;
/** The most characters of one inline type; past it, the plain kind. */
const MAX_TYPE_CHARS = 160;
/** The most characters of a parameter's comment. */
const MAX_COMMENT_CHARS = 100;
/** Parameters listed at most; the rest are counted. */
const MAX_PARAMS = 60;
/** Members of a union or an enum written at most. */
const MAX_MEMBERS = 12;

export interface DeclarationOf {
  id: string;
  name: string;
  summary: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

export function declaration(tool: DeclarationOf): string {
  const properties = propertiesOf(tool.inputSchema);
  const required = new Set(requiredOf(tool.inputSchema));
  const names = Object.keys(properties);
  // Required first, in schema order, as the call signature lists them.
  names.sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const lines = [`/** ${commentText(tool.summary, 200)} */`];
  const result = tool.outputSchema ? typeOf(tool.outputSchema, 0) : "unknown";
  const tail = `: Promise<${result}>; // tools.call(${JSON.stringify(tool.id)}, args)`;
  if (!names.length) {
    lines.push(`function ${identifier(tool.name)}(args?: {})${tail}`);
    return lines.join("\n");
  }
  lines.push(`function ${identifier(tool.name)}(args: {`);
  for (const name of names.slice(0, MAX_PARAMS)) {
    const schema = properties[name]!;
    const optional = required.has(name) ? "" : "?";
    const note = paramNote(schema);
    lines.push(`  ${key(name)}${optional}: ${typeOf(schema, 1)};${note ? ` // ${note}` : ""}`);
  }
  if (names.length > MAX_PARAMS) lines.push(`  // …${names.length - MAX_PARAMS} more parameters: describe_tool at detail_level "schema" lists them`);
  lines.push(`})${tail}`);
  return lines.join("\n");
}

/** A schema as a TypeScript type, inline. */
export function typeOf(schema: unknown, depth: number): string {
  const written = write(schema, depth);
  return written.length > MAX_TYPE_CHARS ? plainKind(schema) : written;
}

function write(schema: unknown, depth: number): string {
  if (schema === true || schema === undefined) return "unknown";
  if (!schema || typeof schema !== "object") return "never";
  const s = schema as JsonSchema;
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length) return union(options.map((o) => write(o, depth)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length) return s.allOf.map((o) => write(o, depth)).join(" & ");
  const type = s.type;
  if (Array.isArray(type)) return union(type.map((t) => write({ ...s, type: t }, depth)));
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const items = write(s.items, depth + 1);
      return topLevelOperator(items) ? `(${items})[]` : `${items}[]`;
    }
    case "object":
      return objectType(s, depth);
    default:
      return s.properties ? objectType(s, depth) : "unknown";
  }
}

function objectType(s: JsonSchema, depth: number): string {
  const properties = propertiesOf(s);
  const names = Object.keys(properties);
  const extra = s.additionalProperties;
  if (!names.length) return extra && typeof extra === "object" ? `Record<string, ${write(extra, depth + 1)}>` : "object";
  if (depth >= MAX_DEPTH) return "object";
  const required = new Set(requiredOf(s));
  const fields = names.map((name) => `${key(name)}${required.has(name) ? "" : "?"}: ${write(properties[name], depth + 1)}`);
  return `{ ${fields.join("; ")} }`;
}

/** What a type too long to write inline is, at least. */
function plainKind(schema: unknown): string {
  const type = schema && typeof schema === "object" ? (schema as JsonSchema).type : undefined;
  if (type === "array") return "unknown[]";
  if (type === "object" || (schema && typeof schema === "object" && (schema as JsonSchema).properties)) return "object";
  if (type === "string" || type === "boolean" || type === "null") return type;
  if (type === "number" || type === "integer") return "number";
  return "unknown";
}

/** Members past MAX_MEMBERS make the union its members' kinds, with how many values a comment says. */
function union(members: string[]): string {
  const unique = [...new Set(members)];
  if (unique.includes("unknown")) return "unknown";
  if (unique.length <= MAX_MEMBERS) return unique.join(" | ");
  const kinds = [...new Set(unique.map((m) => (m.startsWith('"') ? "string" : /^-?\d/.test(m) ? "number" : m)))];
  return `/* one of ${unique.length} values */ ${kinds.length <= MAX_MEMBERS ? kinds.join(" | ") : "unknown"}`;
}

/** Whether a type has a | or & outside its braces, brackets and strings (then `[]` needs parentheses around it). */
function topLevelOperator(type: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if ("{[(<".includes(c)) depth++;
    else if ("}])>".includes(c)) depth--;
    else if (depth === 0 && (c === "|" || c === "&")) return true;
  }
  return false;
}

function literal(value: unknown): string {
  if (value === null || typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value === "string") return JSON.stringify(commentText(value, 60));
  return "unknown";
}

/** The line's comment: the default, then the description, on one line. */
function paramNote(schema: unknown): string {
  if (!schema || typeof schema !== "object") return "";
  const s = schema as JsonSchema;
  const parts: string[] = [];
  if ("default" in s && s.default !== undefined) {
    const shown = JSON.stringify(s.default);
    if (shown !== undefined) parts.push(`default ${commentText(shown, 40)}`);
  }
  if (typeof s.description === "string" && s.description.trim()) parts.push(s.description);
  return commentText(parts.join("; "), MAX_COMMENT_CHARS);
}

/** Schema words made safe inside a comment: one line, printable, never `*\/`, bounded. */
function commentText(text: string, max: number): string {
  const line = text
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, " ")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]+/g, " ")
    .replace(/\*\//g, "* /")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(commentText(name, 80));
}

function identifier(name: string): string {
  const cleaned = name.replace(/[^\w$]/g, "_");
  return /^[A-Za-z_$]/.test(cleaned) ? cleaned : `_${cleaned}`;
}
