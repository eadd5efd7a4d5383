/**
 * Turns ajv errors into what an agent can act on: the field, what was
 * expected, what it sent, and a corrected copy of its arguments.
 */
import type { ErrorObject } from "ajv";
import type { JsonSchema } from "../model/tool.js";
import { nearest } from "../text/suggest.js";

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

/** A repaired copy of some arguments, and the fields whose values only the caller can give. */
export interface Repair {
  args: Record<string, unknown>;
  /** `args.path`: required, with nothing to go on (no default, example or single allowed value, nothing sent under another name). */
  unknown: string[];
}

/**
 * A copy of `args` repaired error by error: an unknown field moved to the
 * declared one it most likely meant (by name, or the one missing required
 * field its value fits), others removed; missing ones filled from the
 * schema (default, example, const, enum); wrong types converted where the
 * value allows it. What cannot be known is listed, never made up.
 */
export function correctArgs(schema: JsonSchema, args: Record<string, unknown>, errors: readonly ErrorObject[]): Repair {
  const fixed = structuredClone(args);
  const unknown: string[] = [];
  const moved = new Set<string>();
  const retyped = new Set<string>();
  const untyped = new Set<string>();
  // Unknown fields first: one may be the value a missing required field wants.
  for (const error of [...errors].sort((a, b) => Number(b.keyword === "additionalProperties") - Number(a.keyword === "additionalProperties"))) {
    const parts = pointerParts(error.instancePath);
    const p = error.params as Record<string, unknown>;
    const here = schemaAt(schema, parts);
    if (error.keyword === "required") {
      const name = String(p.missingProperty);
      if (moved.has(pointerKey([...parts, name])) || getAt(fixed, [...parts, name]) !== undefined) continue;
      const value = placeholder(propertySchema(here, name));
      if (value === undefined) unknown.push(pointerToPath([...parts, name].map((x) => `/${x}`).join("")));
      else setAt(fixed, [...parts, name], value);
    } else if (error.keyword === "additionalProperties") {
      const name = String(p.additionalProperty);
      const value = getAt(fixed, [...parts, name]);
      const meant = meantProperty(here, name, fixed, parts) ?? fittingRequired(here, value, fixed, parts, errors, error.instancePath);
      if (meant) {
        setAt(fixed, [...parts, meant], value);
        moved.add(pointerKey([...parts, meant]));
      }
      deleteAt(fixed, [...parts, name]);
    } else if (error.keyword === "type") {
      // Under anyOf each branch reports its own type: the first that converts the value settles it.
      if (retyped.has(error.instancePath)) continue;
      const value = convert(getAt(fixed, parts), String(p.type)) ?? placeholder(here);
      if (value === undefined) untyped.add(error.instancePath);
      else {
        setAt(fixed, parts, value);
        retyped.add(error.instancePath);
      }
    } else if (error.keyword === "enum" && Array.isArray(p.allowedValues)) {
      const got = String(getAt(fixed, parts));
      const options = p.allowedValues.map(String);
      const closest = nearest(got, options, 1, 0)[0];
      setAt(fixed, parts, p.allowedValues[options.indexOf(closest ?? options[0]!)]);
    } else if ((error.keyword === "minimum" || error.keyword === "maximum") && typeof p.limit === "number") {
      setAt(fixed, parts, p.limit);
    } else if (parts.length && !/^(anyOf|oneOf|if|not)$/.test(error.keyword)) {
      const value = placeholder(here);
      if (value === undefined) unknown.push(pointerToPath(error.instancePath));
      else setAt(fixed, parts, value);
    }
  }
  for (const path of untyped) if (!retyped.has(path)) unknown.push(pointerToPath(path));
  return { args: fixed, unknown: [...new Set(unknown)] };
}

/**
 * A value the schema itself gives for a field: its default, example, const,
 * single enum value (the first of several), or an empty object or array
 * when that is valid. Undefined when only the caller can know it: no
 * guessed string, number or flag is ever offered as if it were meant.
 */
export function placeholder(schema: JsonSchema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "array" && !(typeof schema.minItems === "number" && schema.minItems > 0)) return [];
  if (type === "object" && !(Array.isArray(schema.required) && schema.required.length)) return {};
  return undefined;
}

/** The one missing required field at this level whose type the value has (`{"file": "README.md"}` for a tool that takes `path`), if exactly one. */
function fittingRequired(
  here: JsonSchema | undefined,
  value: unknown,
  args: unknown,
  parts: string[],
  errors: readonly ErrorObject[],
  at: string,
): string | undefined {
  const missing = errors
    .filter((e) => e.keyword === "required" && e.instancePath === at)
    .map((e) => String((e.params as Record<string, unknown>).missingProperty));
  const fits = missing.filter((name) => getAt(args, [...parts, name]) === undefined && valueFits(propertySchema(here, name), value));
  return fits.length === 1 ? fits[0] : undefined;
}

function valueFits(schema: JsonSchema | undefined, value: unknown): boolean {
  if (!schema || value === undefined || value === null) return false;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const actual = Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  return types.some((t) => t === actual || (t === "number" && actual === "integer"));
}

function pointerKey(parts: string[]): string {
  return parts.join("\u0000");
}

function convert(value: unknown, type: string): unknown {
  const first = type.split(",")[0];
  if ((first === "number" || first === "integer") && typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value))) {
    return first === "integer" ? Math.trunc(Number(value)) : Number(value);
  }
  if (first === "integer" && typeof value === "number") return Math.trunc(value);
  if (first === "string" && (typeof value === "number" || typeof value === "boolean")) return String(value);
  if (first === "boolean" && (value === "true" || value === "false")) return value === "true";
  // A JSON text where an object or array is wanted (a frequent slip): what it says, when it says exactly that.
  if ((first === "object" || first === "array") && typeof value === "string") {
    const parsed = parseJson(value);
    if (first === "object" ? isPlain(parsed) : Array.isArray(parsed)) return parsed;
  }
  if (first === "array" && value !== undefined && !Array.isArray(value)) return [value];
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
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
