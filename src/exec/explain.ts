/**
 * Turns ajv errors into what an agent can act on: the field, what was
 * expected, what it sent, and a corrected copy of its arguments.
 */
import type { ErrorObject } from "ajv";
import type { JsonSchema } from "../model/tool.js";
import { nearest } from "../search/suggest.js";

export interface FieldProblem {
  /** `args.path`, `args.options.limit`, `args[0]`. */
  field: string;
  expected: string;
  got?: unknown;
}

const MAX_PROBLEMS = 5;

/** One problem per field, most useful first (missing and unknown fields before type details). */
export function explainErrors(errors: readonly ErrorObject[], args: unknown, schema?: JsonSchema): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  const ranked = [...errors].sort((a, b) => rank(a) - rank(b));
  for (const error of ranked) {
    const problem = describe(error, args, schema);
    if (!problem || seen.has(problem.field)) continue;
    seen.add(problem.field);
    problems.push(problem);
    if (problems.length >= MAX_PROBLEMS) break;
  }
  return problems;
}

function rank(error: ErrorObject): number {
  // anyOf/oneOf wrappers repeat what their branches said, less precisely.
  return { required: 0, additionalProperties: 1, type: 2, enum: 3, const: 3 }[error.keyword] ?? (/^(anyOf|oneOf|if)$/.test(error.keyword) ? 9 : 5);
}

function describe(error: ErrorObject, args: unknown, schema: JsonSchema | undefined): FieldProblem | undefined {
  const base = pointerToPath(error.instancePath);
  const parts = pointerParts(error.instancePath);
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return { field: join(base, String(p.missingProperty)), expected: "a value (required, missing)" };
    case "additionalProperties": {
      const name = String(p.additionalProperty);
      const meant = schema && meantProperty(schemaAt(schema, parts), name, args, parts);
      const expected = meant ? `no field of this name; did you mean "${meant}"?` : `no field of this name (not in the schema; remove it)`;
      return { field: join(base, name), expected, got: getAt(args, [...parts, name]) };
    }
    case "type":
      return { field: base, expected: `type ${String(p.type)}`, got: getAt(args, pointerParts(error.instancePath)) };
    case "enum":
      return { field: base, expected: `one of ${JSON.stringify(p.allowedValues)}`, got: getAt(args, pointerParts(error.instancePath)) };
    default:
      return { field: base, expected: error.message ?? error.keyword, got: getAt(args, pointerParts(error.instancePath)) };
  }
}

/**
 * A copy of `args` repaired error by error: unknown fields removed, missing
 * ones filled from the schema (default, example, enum, or a typed
 * placeholder), wrong types converted where the value allows it.
 */
export function correctArgs(schema: JsonSchema, args: Record<string, unknown>, errors: readonly ErrorObject[]): Record<string, unknown> {
  const fixed = structuredClone(args);
  for (const error of errors) {
    const parts = pointerParts(error.instancePath);
    const p = error.params as Record<string, unknown>;
    const here = schemaAt(schema, parts);
    if (error.keyword === "required") {
      const name = String(p.missingProperty);
      setAt(fixed, [...parts, name], placeholder(propertySchema(here, name), name));
    } else if (error.keyword === "additionalProperties") {
      const name = String(p.additionalProperty);
      const meant = meantProperty(here, name, fixed, parts);
      if (meant) setAt(fixed, [...parts, meant], getAt(fixed, [...parts, name]));
      deleteAt(fixed, [...parts, name]);
    } else if (error.keyword === "type") {
      setAt(fixed, parts, convert(getAt(fixed, parts), String(p.type)) ?? placeholder(here, parts.at(-1) ?? "value"));
    } else if (error.keyword === "enum" && Array.isArray(p.allowedValues)) {
      const got = String(getAt(fixed, parts));
      const options = p.allowedValues.map(String);
      const closest = nearest(got, options, 1, 0)[0];
      setAt(fixed, parts, p.allowedValues[options.indexOf(closest ?? options[0]!)]);
    } else if ((error.keyword === "minimum" || error.keyword === "maximum") && typeof p.limit === "number") {
      setAt(fixed, parts, p.limit);
    } else if (parts.length && !/^(anyOf|oneOf|if|not)$/.test(error.keyword)) {
      setAt(fixed, parts, placeholder(here, parts.at(-1) ?? "value"));
    }
  }
  return fixed;
}

/** A value that stands in for a missing one: the schema's own default or example first. */
export function placeholder(schema: JsonSchema | undefined, name: string): unknown {
  if (!schema) return `<${name}>`;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return {};
    default:
      return `<${name}>`;
  }
}

function convert(value: unknown, type: string): unknown {
  const first = type.split(",")[0];
  if ((first === "number" || first === "integer") && typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) {
    return first === "integer" ? Math.trunc(Number(value)) : Number(value);
  }
  if (first === "integer" && typeof value === "number") return Math.trunc(value);
  if (first === "string" && (typeof value === "number" || typeof value === "boolean")) return String(value);
  if (first === "boolean" && (value === "true" || value === "false")) return value === "true";
  if (first === "array" && value !== undefined && !Array.isArray(value)) return [value];
  return undefined;
}

function pointerParts(pointer: string): string[] {
  return pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function pointerToPath(pointer: string): string {
  return pointerParts(pointer).reduce(join, "args");
}

function join(base: string, key: string): string {
  return /^\d+$/.test(key) ? `${base}[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;
}

/** The declared property an unknown one most likely meant (`max_results` → `limit` is too far; `colour` → `color` is not), if it is not set already. */
function meantProperty(schema: JsonSchema | undefined, name: string, args: unknown, parts: string[]): string | undefined {
  const declared = Object.keys((schema?.properties as Record<string, unknown> | undefined) ?? {});
  const meant = nearest(name, declared, 1, 0.6)[0];
  return meant !== undefined && getAt(args, [...parts, meant]) === undefined ? meant : undefined;
}

function propertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  const props = schema?.properties as Record<string, JsonSchema> | undefined;
  return props?.[name];
}

function schemaAt(schema: JsonSchema, parts: string[]): JsonSchema | undefined {
  let here: JsonSchema | undefined = schema;
  for (const part of parts) {
    if (!here) return undefined;
    here = /^\d+$/.test(part) && here.items && typeof here.items === "object" ? (here.items as JsonSchema) : propertySchema(here, part);
  }
  return here;
}

function getAt(value: unknown, parts: string[]): unknown {
  let here = value;
  for (const part of parts) here = here && typeof here === "object" ? (here as Record<string, unknown>)[part] : undefined;
  return here;
}

function setAt(root: Record<string, unknown>, parts: string[], value: unknown): void {
  if (!parts.length) return;
  let here: Record<string, unknown> = root;
  for (const part of parts.slice(0, -1)) {
    if (!here[part] || typeof here[part] !== "object") here[part] = {};
    here = here[part] as Record<string, unknown>;
  }
  here[parts.at(-1)!] = value;
}

function deleteAt(root: Record<string, unknown>, parts: string[]): void {
  const parent = getAt(root, parts.slice(0, -1));
  if (parent && typeof parent === "object") delete (parent as Record<string, unknown>)[parts.at(-1)!];
}
