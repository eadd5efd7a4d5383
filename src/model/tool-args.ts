/**
 * A tool's arguments, declared once as a zod object: the handler's argument
 * type is inferred from it, and the JSON Schema that tools/list shows and
 * the validator checks is made from it. Nothing can drift between the two
 * (an `integer` is a `number` with `.int()`, an optional property is one
 * the type marks optional).
 */
import * as z from "zod";
import type { JsonSchema } from "./tool.js";

/** Tools take a closed object: an unknown property is a mistake the validator names. */
export type ArgsSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/** What a handler receives: the arguments as the schema describes them, already validated. */
export type ArgsOf<S extends ArgsSchema> = z.output<S>;

/** The JSON Schema for `schema`, in the plain form MCP clients and ajv read. */
export function argsJsonSchema(schema: ArgsSchema): JsonSchema & { type: "object" } {
  const { $schema: _, ...json } = tidy(z.toJSONSchema(schema, { target: "draft-2020-12", io: "input", unrepresentable: "throw" })) as JsonSchema;
  return { ...json, type: "object" };
}

/**
 * Drops what zod adds that says nothing: the safe-integer bounds of every
 * `.int()`, `propertyNames: {type: "string"}` of every record, and `{}` for
 * "any additional property" (written `true`). Descriptions go last, after
 * the constraints they explain, wherever `.describe()` was called.
 */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  let description: unknown;
  for (const [key, item] of Object.entries(value)) {
    if (key === "description") description = item;
    else if (key === "minimum" && item === Number.MIN_SAFE_INTEGER) continue;
    else if (key === "maximum" && item === Number.MAX_SAFE_INTEGER) continue;
    else if (key === "propertyNames" && isStringType(item)) continue;
    else if (key === "additionalProperties" && isEmpty(item)) out[key] = true;
    else out[key] = tidy(item);
  }
  if (description !== undefined) out.description = description;
  return out;
}

const isEmpty = (value: unknown) => !!value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
const isStringType = (value: unknown) => JSON.stringify(value) === '{"type":"string"}';
