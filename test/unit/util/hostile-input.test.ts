/**
 * The pieces that keep hostile input bounded, table by table: the regex
 * compiler (linear engine, refusals with reasons), the id glob matcher, the
 * safe spelling of tool names, and binary detection by content.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { looksBinary } from "../../../src/codeintel/files.js";
import { globTester, pathGlob } from "../../../src/util/glob.js";
import { compileRegex, MAX_PROGRAM, RegexError } from "../../../src/util/regex.js";
import { safeToolName, servedNames } from "../../../src/registry/names.js";

describe("compileRegex", () => {
  it.each([
    ["TODO|FIXME", "v8", "a FIXME here", 2],
    ["foo\\.bar", "v8", "x foo.bar", 2],
    ["(a+)+$", "re2", `${"a".repeat(50_000)}!`, -1],
    ["(a|aa)+(b|c)*$", "re2", `${"a".repeat(50_000)}d`, -1],
    ["(a|a)(a|a)(a|a)(a|a)b", "re2", "aaaab", 0],
    ["function\\s+load", "re2", "export function  load()", 7],
    ["\\u0041+", "re2", "xAA", 1],
  ] as const)("%s runs on %s and finds the match", (pattern, engine, text, at) => {
    const regex = compileRegex(pattern);
    expect(regex.engine).toBe(engine);
    expect(regex.search(text)).toBe(at);
    expect(regex.test(text)).toBe(at >= 0);
  });

  it("honours case and line anchors", () => {
    expect(compileRegex("^b$", { multiline: true }).test("a\nb\nc")).toBe(true);
    expect(compileRegex("^b$").test("a\nb\nc")).toBe(false);
    expect(compileRegex("abc", { ignoreCase: true }).test("xABC")).toBe(true);
    expect(compileRegex("a+bc", { ignoreCase: true }).test("xAABC")).toBe(true);
  });

  it.each([
    ["foo(?=bar)", /lookahead and lookbehind/],
    ["(?<!x)y", /lookahead and lookbehind/],
    ["(a)\\1", /backreferences/],
    ["(?<n>a)\\k<n>", /backreferences/],
    ["\\w{300}\\w{300}", new RegExp(`over the limit of ${MAX_PROGRAM}`)],
    ["a(", /missing closing \): `a\(`/],
    ["a**", /invalid nested repetition/],
  ])("%s is refused, saying why", (pattern, reason) => {
    expect(() => compileRegex(pattern)).toThrow(RegexError);
    expect(() => compileRegex(pattern)).toThrow(reason);
  });
});

describe("globs", () => {
  it.each([
    ["*a*a*a*a*b", `${"a".repeat(200)}`, false],
    ["*a*a*a*a*b", `${"a".repeat(200)}b`, true],
    ["github:*", "github:create_issue", true],
    ["git?ub:*issue", "github:create_issue", true],
    ["*:read_*", "files:read_text_file", true],
    ["*:read_*", "files:write_file", false],
    ["", "", true],
    ["*", "", true],
  ])("id glob %s against %s: %s", (glob, value, expected) => {
    expect(globTester(glob)(value)).toBe(expected);
  });

  it.each([
    ["*.ts", "src/app.ts", true],
    ["src/**/*.ts", "src/a/b/c.ts", true],
    ["src/**/*.ts", "lib/c.ts", false],
    ["*.{ts,py}", "x/y.py", true],
    ["*a*a*a*a*b", `${"a".repeat(200)}.txt`, false],
  ])("path glob %s against %s: %s", (glob, path, expected) => {
    expect(pathGlob(glob)(path)).toBe(expected);
  });
});

describe("safe tool names", () => {
  it.each([
    ["read_file", undefined],
    ["admin.tools/list-v2", undefined],
    ["get weather", "get_weather"],
    ["csi\u009b31m", "csi_31m"],
    ["two\nlines", "two_lines"],
    ["café", "cafe"],
    ["\u0000\u0001", "tool"],
  ])("%j is served as %j", (name, safe) => {
    expect(safeToolName(name)).toBe(safe);
  });

  it("names that spell alike are all given hashes, whatever order the backend lists them in", () => {
    const one = servedNames(["a b", "a\tb", "a_c", "a c"]);
    const other = servedNames(["a c", "a_c", "a\tb", "a b"]);
    expect(one).toEqual(other);
    expect(one.get("a b")).toMatch(/^a_b_[0-9a-f]{8}$/);
    expect(one.get("a b")).not.toBe(one.get("a\tb"));
    expect(one.get("a c")).toMatch(/^a_c_[0-9a-f]{8}$/);
    expect(one.has("a_c")).toBe(false);
  });

  it("a name over 128 characters is cut, with a hash that tells two such names apart", () => {
    const a = safeToolName(`${"x".repeat(200)}a`)!;
    const b = safeToolName(`${"x".repeat(200)}b`)!;
    expect(a.length).toBeLessThanOrEqual(128);
    expect(a).toMatch(/^x+_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });
});

describe("binary by content", () => {
  it.each([
    ["plain text", Buffer.from("hello\nworld\n".repeat(1000)), false],
    ["UTF-8 with accents and emoji", Buffer.from("naïve café 🎉 ünïcödé\n".repeat(500)), false],
    ["Latin-1 text", Buffer.from("Café crème brûlée, naïve façade.\n".repeat(500), "latin1"), false],
    ["a NUL deep inside", Buffer.concat([Buffer.from("a".repeat(100_000)), Buffer.from([0]), Buffer.from("b".repeat(10))]), true],
    ["random bytes", randomBytes(50_000), true],
    ["random bytes without NULs", Buffer.from(randomBytes(50_000).map((b) => b || 1)), true],
    [
      "text whose middle is random",
      Buffer.concat([Buffer.from("t".repeat(40_000)), Buffer.from(randomBytes(20_000).map((b) => b || 1)), Buffer.from("t".repeat(40_000))]),
      true,
    ],
  ])("%s: %s", (_label, bytes, binary) => {
    expect(looksBinary(bytes)).toBe(binary);
  });
});
