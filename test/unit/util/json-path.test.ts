/**
 * util/json-path.ts: parsing the JSONPath subset (parseJsonPath), evaluating it with misses that say where they
 * stopped and what exists there (evaluateJsonPath), and the helpers that word and follow a miss (childPath,
 * describeMiss, suggestAfterMiss).
 */
import { describe, expect, it } from "vitest";
import { childPath, describeMiss, evaluateJsonPath, parseJsonPath, suggestAfterMiss, type JsonPathMiss } from "../../../src/util/json-path.js";

const BRACKET = 'use ["key"], [0], [*] or [1:5]';

describe("parseJsonPath", () => {
  it.each<[string, unknown]>([
    ["", []],
    ["$", []],
    ["  $.a  ", [{ key: "a" }]],
    ["a", [{ key: "a" }]],
    ["$.a.b", [{ key: "a" }, { key: "b" }]],
    ["a.b c", [{ key: "a" }, { key: "b c" }]],
    ["é.🙂", [{ key: "é" }, { key: "🙂" }]],
    ["a.*", [{ key: "a" }, { all: true }]],
    ["a.**", [{ key: "a" }, { key: "**" }]],
    ["a[*]", [{ key: "a" }, { all: true }]],
    ["a[ * ]", [{ key: "a" }, { all: true }]],
    ["a[0]", [{ key: "a" }, { index: 0 }]],
    ["a[-1]", [{ key: "a" }, { index: -1 }]],
    ["a[ 01 ]", [{ key: "a" }, { index: 1 }]],
    ["a[1:5]", [{ key: "a" }, { from: 1, to: 5 }]],
    ["a[1 : 5]", [{ key: "a" }, { from: 1, to: 5 }]],
    ["a[-2:]", [{ key: "a" }, { from: -2, to: undefined }]],
    ["a[:3]", [{ key: "a" }, { from: undefined, to: 3 }]],
    ["a[:]", [{ key: "a" }, { from: undefined, to: undefined }]],
    ['a["k.d"]', [{ key: "a" }, { key: "k.d" }]],
    ["a['k.d']", [{ key: "a" }, { key: "k.d" }]],
    ['a[""]', [{ key: "a" }, { key: "" }]],
    ['["a[0].b"]', [{ key: "a[0].b" }]],
    ['["\\u0041\\"\\\\"]', [{ key: 'A"\\' }]],
    ['$["..", "x"]', `cannot read the bracket at position 1; ${BRACKET}`],
    ["a..b", 'expected a key after "." at position 1'],
    ["$..a", 'expected a key after "." at position 1'],
    ["a.", 'expected a key after "." at position 1'],
    ["..", 'expected a key after "." at position 0'],
    ["a[", `cannot read the bracket at position 1; ${BRACKET}`],
    ["a[x]", `cannot read the bracket at position 1; ${BRACKET}`],
    ["a.b[0", `cannot read the bracket at position 3; ${BRACKET}`],
    ["$[]", `cannot read the bracket at position 1; ${BRACKET}`],
    ["a[1:5:2]", `cannot read the bracket at position 1; ${BRACKET}`],
    ["a[1.5]", `cannot read the bracket at position 1; ${BRACKET}`],
    ["$a", 'unexpected "a" at position 1'],
    ["a]", 'unexpected "]" at position 1'],
    // Escapes JSON does not read are refused, not thrown.
    ['$["\\q"]', `the key at position 1 is not a valid quoted string (check its escapes: \\", \\\\, \\u0041)`],
    ['["\\u00"]', `the key at position 0 is not a valid quoted string (check its escapes: \\", \\\\, \\u0041)`],
    ['$["a\tb"]', `the key at position 1 is not a valid quoted string (check its escapes: \\", \\\\, \\u0041)`],
  ])("%j", (path, expected) => {
    expect(parseJsonPath(path)).toEqual(expected);
  });

  it("reads a long path in one pass", () => {
    expect(parseJsonPath(Array(5000).fill("k").join("."))).toEqual(Array(5000).fill({ key: "k" }));
  });
});

describe("evaluateJsonPath", () => {
  const doc = {
    a: { b: [1, 2, { c: "x" }], "k.d": 5, "": 7 },
    list: [{ n: 1 }, { n: 2 }, { m: 3 }],
    "a[0]": "literal",
    é: { "🙂": "smile" },
    nul: null,
    empty: [],
  };
  const TOP = ["a", "list", "a[0]", "é", "nul", "empty"];

  it.each<[string, unknown]>([
    ["$", doc],
    ["", doc],
    ["$.a.b", [1, 2, { c: "x" }]],
    ["a.b[0]", 1],
    ["a.b[-1]", { c: "x" }],
    ["a.b[-3]", 1],
    ["a.b[2].c", "x"],
    ["a.b[*]", [1, 2, { c: "x" }]],
    ["a.b[1:]", [2, { c: "x" }]],
    ["a.b[:1]", [1]],
    ["a.b[-2:]", [2, { c: "x" }]],
    ["a.b[5:9]", []],
    ['a["k.d"]', 5],
    ['a[""]', 7],
    ['["a[0]"]', "literal"],
    ["é.🙂", "smile"],
    ["nul", null],
    ["list[*].n", [1, 2]],
    ["list[0:2].n", [1, 2]],
    ["list[*].zz", []],
    ["list[*][0]", []],
    ["a[*]", [[1, 2, { c: "x" }], 5, 7]],
    ["a[*][*]", [1, 2, { c: "x" }]],
    ["empty[*]", []],
  ])("%j", (path, value) => {
    expect(evaluateJsonPath(doc, path)).toEqual({ ok: true, value });
  });

  it.each<[string, JsonPathMiss]>([
    ["x", { ok: false, error: 'no key "x"', at: "$", available: TOP }],
    ["a.zz", { ok: false, error: 'no key "zz"', at: "$.a", available: ["b", "k.d", ""] }],
    ["a[0]", { ok: false, error: "not an array", at: "$.a", available: ["b", "k.d", ""] }],
    ["a[1:2]", { ok: false, error: "not an array", at: "$.a", available: ["b", "k.d", ""] }],
    ["a.b[3]", { ok: false, error: "index 3 is out of range (length 3)", at: "$.a.b", available: ["[0]…[2]"] }],
    ["a.b[-4]", { ok: false, error: "index -4 is out of range (length 3)", at: "$.a.b", available: ["[0]…[2]"] }],
    ["a.b.length", { ok: false, error: 'no key "length"', at: "$.a.b", available: ["[0]…[2]"] }],
    ["a.b[0].c", { ok: false, error: 'no key "c"', at: "$.a.b[0]", available: undefined }],
    ["nul.x", { ok: false, error: 'no key "x"', at: "$.nul", available: undefined }],
    ['a["k.d"].x', { ok: false, error: 'no key "x"', at: '$.a["k.d"]', available: undefined }],
    ["__proto__", { ok: false, error: 'no key "__proto__"', at: "$", available: TOP }],
    ["a.constructor", { ok: false, error: 'no key "constructor"', at: "$.a", available: ["b", "k.d", ""] }],
    ["a.toString", { ok: false, error: 'no key "toString"', at: "$.a", available: ["b", "k.d", ""] }],
    ["a..b", { ok: false, error: 'expected a key after "." at position 1', at: "$" }],
  ])("miss %j", (path, miss) => {
    expect(evaluateJsonPath(doc, path)).toStrictEqual(miss);
  });

  it("lists at most 30 keys where a miss stops", () => {
    const wide = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]));
    const miss = evaluateJsonPath(wide, "zz") as JsonPathMiss;
    expect(miss.available).toEqual(Array.from({ length: 30 }, (_, i) => `k${i}`));
  });

  it("works on a bare array, a scalar root, deep nesting and a huge value", () => {
    expect(evaluateJsonPath([10, 20], "[1]")).toEqual({ ok: true, value: 20 });
    expect(evaluateJsonPath([10, 20], "$[*]")).toEqual({ ok: true, value: [10, 20] });
    expect(evaluateJsonPath(5, "$")).toEqual({ ok: true, value: 5 });
    expect(evaluateJsonPath(5, "a")).toStrictEqual({ ok: false, error: 'no key "a"', at: "$", available: undefined });
    let deep: unknown = "bottom";
    for (let i = 0; i < 3000; i++) deep = { d: deep };
    expect(evaluateJsonPath(deep, Array(3000).fill("d").join("."))).toEqual({ ok: true, value: "bottom" });
    const huge = "y".repeat(1_000_000);
    expect(evaluateJsonPath({ x: [huge] }, "x[0]")).toEqual({ ok: true, value: huge });
  });
});

describe("childPath, describeMiss and suggestAfterMiss", () => {
  it.each<[string, string, string]>([
    ["$", "a", "$.a"],
    ["$", "_x$1", "$._x$1"],
    ["$", "$x", "$.$x"],
    ["$", "a b", '$["a b"]'],
    ["$", "0", '$["0"]'],
    ["$", "1a", '$["1a"]'],
    ["$", "", '$[""]'],
    ["$", "é", '$["é"]'],
    ["$.a", 'q"\\', '$.a["q\\"\\\\"]'],
    ["$.a", "a[0].b", '$.a["a[0].b"]'],
  ])("childPath(%j, %j) = %s", (path, key, expected) => {
    expect(childPath(path, key)).toBe(expected);
  });

  it("a child path evaluates back to the key it names", () => {
    for (const key of ["a b", "0", "", "é", 'q"\\', "a[0].b", "..", "🙂"]) {
      expect(evaluateJsonPath({ [key]: 42 }, childPath("$", key))).toEqual({ ok: true, value: 42 });
    }
  });

  it.each<[string, JsonPathMiss, string, string | undefined]>([
    ["x", { ok: false, error: 'no key "x"', at: "$", available: ["a", "b c"] }, 'x: no key "x" at $. Available there: a, b c.', "$.a"],
    [
      "a.b[9]",
      { ok: false, error: "index 9 is out of range (length 3)", at: "$.a.b", available: ["[0]…[2]"] },
      "a.b[9]: index 9 is out of range (length 3) at $.a.b. Available there: [0]…[2].",
      undefined,
    ],
    ["n.x", { ok: false, error: 'no key "x"', at: "$.n" }, 'n.x: no key "x" at $.n.', undefined],
    [
      "q",
      { ok: false, error: 'no key "q"', at: "$", available: ["[weird", "two words"] },
      'q: no key "q" at $. Available there: [weird, two words.',
      '$["two words"]',
    ],
  ])("a miss of %j", (path, miss, words, suggestion) => {
    expect(describeMiss(path, miss)).toBe(words);
    expect(suggestAfterMiss(miss)).toBe(suggestion);
  });
});
