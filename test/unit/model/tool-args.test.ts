/** A tool's zod arguments as the JSON Schema tools/list shows and ajv checks (src/model/tool-args.ts). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { argsJsonSchema } from "../../../src/model/tool-args.js";
import { SchemaValidator } from "../../../src/exec/validator.js";

describe("argsJsonSchema", () => {
  it.each([
    ["a whole number", z.int().min(1), { type: "integer", minimum: 1 }],
    ["a whole number with both bounds", z.int().min(0).max(10), { type: "integer", minimum: 0, maximum: 10 }],
    ["an unbounded whole number", z.int(), { type: "integer" }],
    ["a bounded string", z.string().min(1).max(9), { type: "string", minLength: 1, maxLength: 9 }],
    ["a pattern", z.string().regex(/^@out_/), { type: "string", pattern: "^@out_" }],
    ["an enum", z.enum(["a", "b"]), { type: "string", enum: ["a", "b"] }],
    ["a free object", z.record(z.string(), z.unknown()), { type: "object", additionalProperties: true }],
    ["a list", z.array(z.string().max(3)).max(2), { type: "array", maxItems: 2, items: { type: "string", maxLength: 3 } }],
    ["a union", z.union([z.string(), z.array(z.string())]), { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] }],
  ])("%s", (_, schema, expected) => {
    const json = argsJsonSchema(z.strictObject({ x: schema }));
    expect(json.properties).toEqual({ x: expected });
    expect(json.required).toEqual(["x"]);
  });

  it("makes a closed object with optional properties left out of required, and no $schema", () => {
    const json = argsJsonSchema(z.strictObject({ a: z.string(), b: z.boolean().optional() }));
    expect(json).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "boolean" } }, required: ["a"], additionalProperties: false });
  });

  it("puts a description after the constraints, wherever .describe() was called", () => {
    const early = argsJsonSchema(z.strictObject({ n: z.int().min(1).optional().describe("Default 5.") }));
    const late = argsJsonSchema(z.strictObject({ n: z.int().min(1).describe("Default 5.").optional() }));
    expect(JSON.stringify(early)).toBe(JSON.stringify(late));
    expect(Object.keys((early.properties as Record<string, Record<string, unknown>>).n ?? {})).toEqual(["type", "minimum", "description"]);
  });

  it("refuses what JSON Schema cannot say, at definition time", () => {
    expect(() => argsJsonSchema(z.strictObject({ when: z.date() }))).toThrow();
  });

  it("validates as the handler's type promises", () => {
    const schema = argsJsonSchema(z.strictObject({ limit: z.int().min(1).max(50).optional(), query: z.string() }));
    const validator = new SchemaValidator();
    expect(validator.validate(schema, { query: "x", limit: 5 }).ok).toBe(true);
    expect(validator.validate(schema, { query: "x", limit: 2.5 }).ok).toBe(false);
    expect(validator.validate(schema, { query: "x", extra: 1 }).ok).toBe(false);
    expect(validator.validate(schema, { limit: 1 }).ok).toBe(false);
  });
});
