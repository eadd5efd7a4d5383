import { describe, expect, it } from "vitest";
import { ajvCached } from "../../helpers/ajv-cache.js";
import type { JsonSchema } from "../../../src/model/tool.js";
import { SchemaValidator } from "../../../src/exec/validator.js";

describe("schemas of tools that come and go", () => {
  it("are not all kept by ajv: each ajv serves 500 compilations, then a new one takes over and the old goes with its tools", () => {
    const validator = new SchemaValidator();
    const seen = new Set<unknown>();
    for (let i = 0; i < 2000; i++) {
      const schema: JsonSchema = { type: "object", properties: { [`field_${i}`]: { type: "string", minLength: 1 } }, required: [`field_${i}`] };
      expect(validator.validate(schema, { [`field_${i}`]: "x" })).toEqual({ ok: true });
      expect(validator.validate(schema, {}).ok).toBe(false);
      seen.add((validator as unknown as { draft07: unknown }).draft07);
      // ajv's own map of what it compiled never holds more than one ajv's share.
      expect(ajvCached(validator)).toBeLessThanOrEqual(500 + 1); // and the one schema ajv starts with
    }
    expect(seen.size).toBe(4);
  });

  it("still validate, compiled once: references within the schema, recursion, formats", () => {
    const validator = new SchemaValidator();
    const tree: JsonSchema = {
      type: "object",
      properties: { name: { type: "string" }, when: { type: "string", format: "date-time" }, children: { type: "array", items: { $ref: "#" } } },
      required: ["name"],
      definitions: { unused: { type: "number" } },
    };
    expect(validator.validate(tree, { name: "a", children: [{ name: "b", children: [{ name: "c" }] }] })).toEqual({ ok: true });
    // Compiled once; the second run uses the validator kept in the WeakMap.
    const bad = validator.validate(tree, { name: "a", children: [{ children: [] }] });
    expect(bad.ok).toBe(false);
    expect(validator.validate(tree, { name: "a", when: "not a date" }).ok).toBe(false);
  });
});
