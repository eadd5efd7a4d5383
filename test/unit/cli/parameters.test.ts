import { describe, expect, it } from "vitest";
import { parameterRows } from "../../../src/cli/parameters.js";

/** An object schema nested `levels` deep, each level one field `f` and one leaf `x`. */
function nested(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "object", properties: { x: { type: "string" } } };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { f: schema, x: { type: "string" } }, required: ["f"] };
  return schema;
}

describe("the CLI's parameter rows", () => {
  it("go at most four levels down; the last says the rest is in --json", () => {
    const rows = parameterRows(nested(8));
    expect(rows.map(([name]) => name)).toEqual(["f*", "f.f*", "f.f.f*", "f.f.f.f*", "f.f.f.x", "f.f.x", "f.x", "x"]);
    expect(rows[3]![2]).toBe("(fields: --json)");
  });

  it("stop at 40 rows and count the fields left out, nested ones included", () => {
    const properties = Object.fromEntries(
      Array.from({ length: 45 }, (_, i) => [`p${i}`, i === 44 ? { type: "object", properties: { a: {}, b: {} } } : { type: "string" }]),
    );
    const rows = parameterRows({ type: "object", properties });
    expect(rows).toHaveLength(41);
    expect(rows.at(-1)).toEqual(["…", "", "7 more fields: --json shows the whole schema"]);
  });

  it("write a short enum as its values and a long one as enum, at most 12 values listed", () => {
    const values = Array.from({ length: 20 }, (_, i) => `value-${i}`);
    const rows = parameterRows({ type: "object", properties: { short: { enum: ["a", "b"] }, long: { enum: values, description: "Which." } } });
    expect(rows[0]).toEqual(["short", '"a" or "b"', ""]);
    expect(rows[1]![1]).toBe("enum");
    expect(rows[1]![2]).toBe(
      `one of ${values
        .slice(0, 12)
        .map((v) => JSON.stringify(v))
        .join(", ")}, …8 more. Which.`,
    );
  });

  it("read what is not a schema as no rows, and odd fields without throwing", () => {
    expect(parameterRows(undefined)).toEqual([]);
    expect(parameterRows({ properties: "nope" })).toEqual([]);
    expect(parameterRows({ properties: { a: null, b: 5, c: { type: "array", items: "x" } } })).toEqual([
      ["a", "any", ""],
      ["b", "any", ""],
      ["c", "any[]", ""],
    ]);
  });
});
