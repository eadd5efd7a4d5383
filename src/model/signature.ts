/**
 * Compact call signatures for search hits: `read_text_file(path*, head?:number)`.
 * Required parameters carry `*`, optional `?`; a non-string type follows a
 * colon, so simple tools can be called without describe_tool.
 */
import type { JsonSchema } from "./tool.js";

const MAX_PARAMS = 8;

/** A parameter name longer than this is cut in signatures (describe_tool shows it whole): one hit must always fit a page. */
const MAX_PARAM_CHARS = 48;

const CALL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function callSignature(name: string, schema: JsonSchema): string {
  const properties = propertiesOf(schema);
  const required = new Set(requiredOf(schema));
  const names = Object.keys(properties);
  // Required first, in schema order: they are what a caller cannot skip.
  names.sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const parts = names.slice(0, MAX_PARAMS).map((param) => {
    const type = shortType(properties[param])?.slice(0, 24);
    const shown = param.length > MAX_PARAM_CHARS ? `${param.slice(0, MAX_PARAM_CHARS)}…` : param;
    return `${shown}${required.has(param) ? "*" : "?"}${type && type !== "string" ? `:${type}` : ""}`;
  });
  if (names.length > MAX_PARAMS) parts.push(`…+${names.length - MAX_PARAMS}`);
  // A name no code could write as a call (spaces, "::"; MCP's own names are 1-128 of A-Z a-z 0-9 _ - .) is the id's to give: the signature is its arguments.
  return `${CALL_NAME.test(name) ? name : ""}(${parts.join(", ")})`;
}

export function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const props = schema.properties;
  return props && typeof props === "object" ? (props as Record<string, JsonSchema>) : {};
}

export function requiredOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : [];
}

function shortType(schema: unknown): string | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  const s = schema as JsonSchema;
  if (Array.isArray(s.enum)) return "enum";
  if (typeof s.type === "string") return s.type === "integer" ? "int" : s.type;
  if (Array.isArray(s.type)) return s.type.filter((t) => t !== "null").join("|") || undefined;
  for (const key of ["anyOf", "oneOf"]) {
    const options = s[key];
    if (Array.isArray(options)) {
      const types = [...new Set(options.map(shortType).filter((t): t is string => !!t && t !== "null"))];
      if (types.length) return types.join("|");
    }
  }
  return undefined;
}

/** Whether a summary says something its tool's name does not: a word the name lacks (ignoring case, plurals and how words are joined). */
export function saysMore(summary: string, name: string): boolean {
  const named = new Set(words(name));
  return words(summary).some((word) => !named.has(word));
}

function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word));
}
