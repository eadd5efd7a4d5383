/**
 * Argument shape limits on their own, including a prototype already
 * replaced by a parser that assigned a "__proto__" key.
 */
import { describe, expect, it } from "vitest";
import { shapeProblem } from "../../../src/meta/shape.js";

describe("argument shape", () => {
  it("accepts plain JSON data, including keys named like prototype fields that hold no object", () => {
    expect(shapeProblem({ a: [1, "x", { b: null }], constructor: "a name", prototype: 3 })).toBeUndefined();
    expect(shapeProblem(Object.assign(Object.create(null) as object, { a: 1 }))).toBeUndefined();
  });

  it("refuses an object whose prototype was replaced, naming the path", () => {
    const replaced = Object.create({ city: "Oslo" }) as object;
    expect(shapeProblem({ args: replaced })).toEqual({ path: "args.args", problem: expect.stringContaining('"__proto__"') });
  });

  it("counts depth and size", () => {
    expect(shapeProblem({ a: { b: { c: 1 } } }, { maxDepth: 2, maxBytes: 100 })?.problem).toBe("nested deeper than 2 levels");
    expect(shapeProblem({ a: "x".repeat(50), b: "y".repeat(60) }, { maxDepth: 5, maxBytes: 100 })).toEqual({
      path: "args.b",
      problem: "arguments larger than 100 bytes",
    });
  });
});
