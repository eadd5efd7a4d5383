/**
 * exec/explain.ts: ajv errors (made by the project's own SchemaValidator) turned into one problem per field
 * (explainErrors), a repaired copy of the arguments (correctArgs), and the value a schema itself offers (placeholder).
 */
import type { ErrorObject } from "ajv";
import { describe, expect, it } from "vitest";
import { correctArgs, explainErrors, placeholder, type FieldProblem, type Repair } from "../../../src/exec/explain.js";
import { SchemaValidator } from "../../../src/exec/validator.js";
import type { JsonSchema } from "../../../src/model/tool.js";

const validator = new SchemaValidator();

/** The ajv errors for `args`, as the executor gets them; fails the test when the arguments are valid. */
function errorsOf(schema: JsonSchema, args: unknown): ErrorObject[] {
  const result = validator.validate(schema, args);
  if (result.ok !== false) throw new Error(`expected ${JSON.stringify(args)} to be invalid, got ${JSON.stringify(result)}`);
  return result.errors;
}

const TOOL: JsonSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    mode: { enum: ["fast", "slow"] },
    color: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    opts: { type: "object", properties: { depth: { type: "number" } }, additionalProperties: false },
    flag: { type: "boolean" },
  },
  required: ["path"],
  additionalProperties: false,
};
const REQUIRED = "a value (required, missing)";
const REMOVE = "no field of this name (not in the schema; remove it)";
const meant = (name: string) => `no field of this name; did you mean "${name}"?`;
const ITEMS: JsonSchema = {
  type: "object",
  properties: { items: { type: "array", items: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } } },
};
const UNICODE: JsonSchema = { type: "object", properties: { résumé: { type: "string" } }, required: ["résumé"], additionalProperties: false };
const ODD: JsonSchema = { type: "object", properties: { "a/b~c": { type: "integer" } } };
const SIX = { type: "object", properties: Object.fromEntries("abcdef".split("").map((k) => [k, { type: "string" }])), required: "abcdef".split("") };

describe("explainErrors", () => {
  it.each<[string, JsonSchema, unknown, FieldProblem[]]>([
    ["a missing required field", TOOL, {}, [{ field: "args.path", expected: REQUIRED }]],
    ["an unknown field near a declared one", TOOL, { path: "a", colour: "red" }, [{ field: "args.colour", expected: meant("color"), got: "red" }]],
    ["an unknown field near one already set", TOOL, { path: "a", color: "x", colour: "red" }, [{ field: "args.colour", expected: REMOVE, got: "red" }]],
    [
      "missing before unknown",
      TOOL,
      { file: "README.md" },
      [
        { field: "args.path", expected: REQUIRED },
        { field: "args.file", expected: REMOVE, got: "README.md" },
      ],
    ],
    ["a wrong type", TOOL, { path: 5 }, [{ field: "args.path", expected: "type string", got: 5 }]],
    ["an integer sent as text", TOOL, { path: "a", limit: "7.9" }, [{ field: "args.limit", expected: "type integer", got: "7.9" }]],
    ["a value outside an enum", TOOL, { path: "a", mode: "fsat" }, [{ field: "args.mode", expected: 'one of ["fast","slow"]', got: "fsat" }]],
    ["a number over its maximum (ajv's words)", TOOL, { path: "a", limit: 500 }, [{ field: "args.limit", expected: "must be <= 100", got: 500 }]],
    ["a nested unknown field", TOOL, { path: "a", opts: { dpeth: 2 } }, [{ field: "args.opts.dpeth", expected: meant("depth"), got: 2 }]],
    [
      "keys that are not identifiers",
      TOOL,
      { path: "a", "odd key": 1, "x/y~z": 2 },
      [
        { field: 'args["odd key"]', expected: REMOVE, got: 1 },
        { field: 'args["x/y~z"]', expected: REMOVE, got: 2 },
      ],
    ],
    ["a JSON-pointer-escaped key (~0, ~1)", ODD, { "a/b~c": "1" }, [{ field: 'args["a/b~c"]', expected: "type integer", got: "1" }]],
    [
      "a non-ASCII key, and its ASCII spelling",
      UNICODE,
      { resume: "x" },
      [
        { field: 'args["résumé"]', expected: REQUIRED },
        { field: "args.resume", expected: meant("résumé"), got: "x" },
      ],
    ],
    [
      "array elements: required first, then types",
      ITEMS,
      { items: [{ n: "3" }, {}] },
      [
        { field: "args.items[1].n", expected: REQUIRED },
        { field: "args.items[0].n", expected: "type integer", got: "3" },
      ],
    ],
    [
      "anyOf: one problem for the field, from the first branch",
      { properties: { q: { anyOf: [{ type: "number" }, { type: "string" }] } } },
      { q: true },
      [{ field: "args.q", expected: "type number", got: true }],
    ],
  ])("%s", (_name, schema, args, expected) => {
    expect(explainErrors(errorsOf(schema, args), args, schema)).toEqual(expected);
  });

  it("ranks by keyword, not by the order ajv reported", () => {
    const args = { file: "README.md" };
    const fields = explainErrors(errorsOf(TOOL, args).reverse(), args, TOOL).map((p) => p.field);
    expect(fields).toEqual(["args.path", "args.file"]);
  });

  it("stops at five problems", () => {
    const problems = explainErrors(errorsOf(SIX, {}), {}, SIX);
    expect(problems.map((p) => p.field)).toEqual(["args.a", "args.b", "args.c", "args.d", "args.e"]);
  });

  it("suggests no name without a schema, and says nothing for no errors", () => {
    const args = { path: "a", colour: "red" };
    expect(explainErrors(errorsOf(TOOL, args), args)).toEqual([{ field: "args.colour", expected: REMOVE, got: "red" }]);
    expect(explainErrors([], args, TOOL)).toEqual([]);
  });

  it("passes a huge value through as it was sent, and names a deep field in full", () => {
    const huge = "x".repeat(1_000_000);
    const [problem] = explainErrors(errorsOf(TOOL, { path: "a", junk: huge }), { path: "a", junk: huge }, TOOL);
    expect(problem?.got).toBe(huge);
    let schema: JsonSchema = { type: "object", properties: { leaf: { type: "integer" } } };
    let args: unknown = { leaf: "no" };
    for (let i = 0; i < 40; i++) {
      schema = { type: "object", properties: { k: schema } };
      args = { k: args };
    }
    expect(explainErrors(errorsOf(schema, args), args, schema)).toEqual([{ field: `args${".k".repeat(40)}.leaf`, expected: "type integer", got: "no" }]);
  });
});

describe("correctArgs", () => {
  const opt = (properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema => ({ type: "object", properties, ...extra });
  const twoMissing = (b: string) => opt({ a: { type: "string" }, b: { type: b } }, { required: ["a", "b"], additionalProperties: false });
  it.each<[string, JsonSchema, Record<string, unknown>, Repair]>([
    ["a required field only the caller knows", TOOL, {}, { args: {}, unknown: ["args.path"] }],
    ["an unknown field whose value fits the one missing field", TOOL, { file: "README.md" }, { args: { path: "README.md" }, unknown: [] }],
    ["a misspelled field", TOOL, { path: "a", colour: "red" }, { args: { path: "a", color: "red" }, unknown: [] }],
    ["an unknown field with no near name is dropped", TOOL, { path: "a", opts: { deep: 1 } }, { args: { path: "a", opts: {} }, unknown: [] }],
    ["a numeric string for an integer (truncated)", TOOL, { path: "a", limit: "7.9" }, { args: { path: "a", limit: 7 }, unknown: [] }],
    ["exponent notation for an integer", TOOL, { path: "a", limit: "1e1" }, { args: { path: "a", limit: 10 }, unknown: [] }],
    ["over the maximum", TOOL, { path: "a", limit: 500 }, { args: { path: "a", limit: 100 }, unknown: [] }],
    ["under the minimum", TOOL, { path: "a", limit: 0 }, { args: { path: "a", limit: 1 }, unknown: [] }],
    ["a misspelled enum value", TOOL, { path: "a", mode: "fsat" }, { args: { path: "a", mode: "fast" }, unknown: [] }],
    ["an enum value in the wrong case", TOOL, { path: "a", mode: "SLOW" }, { args: { path: "a", mode: "slow" }, unknown: [] }],
    ["a scalar where an array is wanted", TOOL, { path: "a", tags: "x" }, { args: { path: "a", tags: ["x"] }, unknown: [] }],
    ["a JSON array sent as text", TOOL, { path: "a", tags: '["x","y"]' }, { args: { path: "a", tags: ["x", "y"] }, unknown: [] }],
    ["a JSON object sent as text", TOOL, { path: "a", opts: '{"depth":2}' }, { args: { path: "a", opts: { depth: 2 } }, unknown: [] }],
    ["a JSON array where an object is wanted", TOOL, { path: "a", opts: "[1]" }, { args: { path: "a", opts: {} }, unknown: [] }],
    ['"true" for a boolean', TOOL, { path: "a", flag: "true" }, { args: { path: "a", flag: true }, unknown: [] }],
    ['"TRUE" is not guessed', TOOL, { path: "a", flag: "TRUE" }, { args: { path: "a", flag: "TRUE" }, unknown: ["args.flag"] }],
    ["a number for a string", TOOL, { path: 5 }, { args: { path: "5" }, unknown: [] }],
    ["a blank string is no number", opt({ n: { type: "number" } }), { n: " " }, { args: { n: " " }, unknown: ["args.n"] }],
    ["a float for an integer", opt({ n: { type: "integer" } }), { n: -2.7 }, { args: { n: -2 }, unknown: [] }],
    ["a nullable string type", opt({ s: { type: ["string", "null"] } }), { s: 5 }, { args: { s: "5" }, unknown: [] }],
    ["null replaced by the default", opt({ s: { type: "string", default: "d" } }), { s: null }, { args: { s: "d" }, unknown: [] }],
    ["null without a default", opt({ s: { type: "string" } }), { s: null }, { args: { s: null }, unknown: ["args.s"] }],
    ["a const", opt({ s: { const: "x" } }), { s: "y" }, { args: { s: "x" }, unknown: [] }],
    [
      "anyOf: the first branch that converts settles it",
      opt({ q: { anyOf: [{ type: "number" }, { type: "string" }] } }),
      { q: true },
      { args: { q: "true" }, unknown: [] },
    ],
    [
      "anyOf: a later branch does not undo an earlier one",
      opt({ q: { anyOf: [{ type: "integer" }, { type: "boolean" }] } }),
      { q: "7" },
      { args: { q: 7 }, unknown: [] },
    ],
    ["anyOf: no branch converts", opt({ q: { anyOf: [{ type: "integer" }, { type: "boolean" }] } }), { q: "x" }, { args: { q: "x" }, unknown: ["args.q"] }],
    ["too short, with a default", opt({ q: { type: "string", minLength: 3, default: "abc" } }), { q: "a" }, { args: { q: "abc" }, unknown: [] }],
    ["too short, without a default", opt({ q: { type: "string", minLength: 3 } }), { q: "a" }, { args: { q: "a" }, unknown: ["args.q"] }],
    ["the value fits one of two missing fields", twoMissing("integer"), { c: "v" }, { args: { a: "v" }, unknown: ["args.b"] }],
    ["the value fits both missing fields: not moved", twoMissing("string"), { c: "v" }, { args: {}, unknown: ["args.a", "args.b"] }],
    ["inside array elements", ITEMS, { items: [{ n: "3" }, {}] }, { args: { items: [{ n: 3 }, {}] }, unknown: ["args.items[1].n"] }],
    ["an escaped key", ODD, { "a/b~c": "1" }, { args: { "a/b~c": 1 }, unknown: [] }],
    ["a non-ASCII field name", UNICODE, { resume: "x" }, { args: { résumé: "x" }, unknown: [] }],
  ])("%s", (_name, schema, args, expected) => {
    const before = structuredClone(args);
    const repair = correctArgs(schema, args, errorsOf(schema, args));
    expect(repair).toEqual(expected);
    expect(args).toEqual(before);
    // Whatever is not listed as unknown is valid as repaired.
    if (!repair.unknown.length) expect(validator.validate(schema, repair.args)).toEqual({ ok: true });
  });

  it("lists each unknown field once, in full", () => {
    expect(correctArgs(SIX, {}, errorsOf(SIX, {})).unknown).toEqual(["args.a", "args.b", "args.c", "args.d", "args.e", "args.f"]);
  });
});

describe("placeholder", () => {
  it.each<[string, JsonSchema | undefined, unknown]>([
    ["no schema", undefined, undefined],
    ["an empty schema", {}, undefined],
    ["a falsy default", { type: "integer", default: 0 }, 0],
    ["a null default", { default: null }, null],
    ["the first example", { type: "string", examples: ["e1", "e2"] }, "e1"],
    ["no examples", { type: "string", examples: [] }, undefined],
    ["a false const", { const: false }, false],
    ["the first enum value", { enum: ["a", "b"] }, "a"],
    ["an empty enum", { enum: [] }, undefined],
    ["default before example, const and enum", { default: 1, examples: [2], const: 3, enum: [4] }, 1],
    ["example before const", { examples: [2], const: 3, enum: [4] }, 2],
    ["const before enum", { const: 3, enum: [4] }, 3],
    ["an array", { type: "array" }, []],
    ["an array that may be empty", { type: "array", minItems: 0 }, []],
    ["an array that must not be empty", { type: "array", minItems: 1 }, undefined],
    ["a nullable array", { type: ["null", "array"] }, []],
    ["an object", { type: "object" }, {}],
    ["an object with nothing required", { type: "object", required: [] }, {}],
    ["an object with required fields", { type: "object", required: ["x"] }, undefined],
    ["a string", { type: "string" }, undefined],
    ["a number", { type: "number" }, undefined],
    ["a boolean", { type: "boolean" }, undefined],
  ])("%s", (_name, schema, expected) => {
    expect(placeholder(schema)).toStrictEqual(expected);
  });
});
