/**
 * util/glob.ts: id globs (globTester, isGlob, globMatcher: `*` any run, `?` one code point, nothing else special)
 * and file-path globs (pathGlob: segments, `**`, `{a,b}`, regex metacharacters taken literally, refusals), and
 * escapeRegExp.
 */
import { describe, expect, it } from "vitest";
import { escapeRegExp, globMatcher, globTester, isGlob, pathGlob } from "../../../src/util/glob.js";
import { RegexError } from "../../../src/util/regex.js";

describe("globTester", () => {
  it.each<[string, string, boolean]>([
    ["", "a", false],
    ["?", "", false],
    ["?", "ab", false],
    ["a", "a", true],
    ["a", "A", false],
    ["a*", "A", false],
    ["**", "", true],
    ["**", "anything:at/all", true],
    ["gh:*", "gh:repo:issue", true],
    ["gh:*", "gh", false],
    ["*b", "abab", true],
    ["*b", "abba", false],
    ["a*b?d", "axxbyd", true],
    ["a*b?d", "axxbd", false],
    ["*.ts", "x.ts.bak", false],
    ["?", "😀", true],
    ["a?c", "a😀c", true],
    ["??", "😀", false],
    ["é*", "été", true],
    // Regex metacharacters are plain characters.
    ["a.c", "abc", false],
    ["a.c", "a.c", true],
    ["a+", "aa", false],
    ["[ab]", "a", false],
    ["[ab]", "[ab]", true],
    ["(a|b)", "(a|b)", true],
    ["^a$", "^a$", true],
    ["\\*", "\\anything", true],
    ["{a,b}", "a", false],
    ["{a,b}", "{a,b}", true],
    ["*a*a*a*a*b", `${"a".repeat(20_000)}`, false],
    ["*a*a*a*a*b", `${"a".repeat(20_000)}b`, true],
    [`${"?".repeat(1000)}*`, "x".repeat(999), false],
    [`${"?".repeat(1000)}*`, "x".repeat(1000), true],
  ])("%j against %j: %s", (glob, value, expected) => {
    expect(globTester(glob)(value)).toBe(expected);
  });
});

describe("isGlob and globMatcher", () => {
  it.each<[string, boolean]>([
    ["", false],
    ["plain:name", false],
    ["a*", true],
    ["a?", true],
    ["[ab]", false],
    ["{a,b}", false],
    ["a.b+c", false],
  ])("isGlob(%j) = %s", (pattern, expected) => {
    expect(isGlob(pattern)).toBe(expected);
  });

  const matcher = globMatcher(["exact:name", "gh:*", "a?c", "[x]"]);
  it.each<[string, boolean]>([
    ["exact:name", true],
    ["exact:nam", false],
    ["EXACT:NAME", false],
    ["gh:", true],
    ["gh:x:y", true],
    ["abc", true],
    ["ac", false],
    ["[x]", true],
    ["x", false],
    ["", false],
  ])("matcher over [exact:name, gh:*, a?c, [x]] and %j: %s", (value, expected) => {
    expect(matcher(value)).toBe(expected);
  });

  it("an empty list matches nothing; an empty string matches only itself", () => {
    expect([globMatcher([])(""), globMatcher([])("x")]).toEqual([false, false]);
    expect([globMatcher([""])(""), globMatcher([""])("x")]).toEqual([true, false]);
  });
});

describe("pathGlob", () => {
  it.each<[string, string, boolean]>([
    // Without a "/": the file name at any depth.
    ["*.ts", "a.ts", true],
    ["*.ts", "src/deep/a.ts", true],
    ["*.ts", "a.ts.bak", false],
    ["*.ts", "src.ts/a.js", false],
    ["*", ".hidden", true],
    ["?.ts", "é.ts", true],
    ["?.ts", "😀.ts", true],
    ["?.ts", "ab.ts", false],
    // With a "/": the whole path.
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/a/b.ts", false],
    ["src/*.ts", "lib/src/a.ts", false],
    ["a/b", "x/a/b", false],
    ["./src/*.ts", "src/a.ts", true],
    ["/src/*.ts", "src/a.ts", true],
    ["src/?", "src/x", true],
    ["src/?", "src//", false],
    // ** spans segments.
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/a/b/c.ts", true],
    ["src/**/*.ts", "lib/c.ts", false],
    ["**/*.ts", "a.ts", true],
    ["**/*.ts", "x/y/a.ts", true],
    ["**", "a/b/c", true],
    ["src/**", "src/a/b", true],
    ["src/**", "src", false],
    ["src/**/test", "src/test", true],
    ["src/**/test", "src/a/b/test", true],
    ["src/**/test", "src/atest", false],
    // Braces.
    ["*.{ts,js}", "x.js", true],
    ["*.{ts,js}", "x.md", false],
    ["*.{ts,}", "x.", true],
    ["{a,{b,c}}.md", "c.md", true],
    ["{src,lib}/*.ts", "lib/a.ts", true],
    ["{src,lib}/*.ts", "test/a.ts", false],
    ["a,b", "a,b", true],
    ["a}.md", "a}.md", true],
    // Regex metacharacters are literal.
    ["a.b", "axb", false],
    ["a.b", "a.b", true],
    ["a+b", "aab", false],
    ["a+b", "a+b", true],
    ["(x)", "(x)", true],
    ["(x)", "x", false],
    ["[ab]", "a", false],
    ["[ab]", "[ab]", true],
    ["a|b", "a", false],
    ["a|b", "a|b", true],
    ["^a$", "^a$", true],
    ["a\\b", "a\\b", true],
    ["a\\b", "ab", false],
    ["$HOME", "$HOME", true],
    // Paths with odd parts are matched as text: ".." is two dots.
    ["../*.ts", "../a.ts", true],
    ["../*.ts", "x/a.ts", false],
    ["*.ts", "../../etc/a.ts", true],
    ["**/.env", "a/b/.env", true],
    ["**/.env", "a/b/x.env", false],
    ["*a*a*a*a*b", `${"a".repeat(20_000)}.txt`, false],
  ])("%j against %j: %s", (glob, path, expected) => {
    expect(pathGlob(glob)(path)).toBe(expected);
  });

  it.each<[string, string, string]>([
    ["an unclosed brace", "{a,b", 'a "{" is never closed (braces list alternatives, as in *.{ts,js})'],
    ["a glob over the pattern length limit", "a".repeat(1001), "the glob (1001 characters) is too large or complex to match safely; use a shorter one"],
    ["a glob that compiles to too many states", "*".repeat(600), "the glob (600 characters) is too large or complex to match safely; use a shorter one"],
  ])("refuses %s with a RegexError that speaks of the glob", (_name, glob, message) => {
    expect(() => pathGlob(glob)).toThrow(new RegexError(message));
  });
});

describe("escapeRegExp", () => {
  it.each<[string, string]>([
    ["", ""],
    ["plain", "plain"],
    [".*+?^${}()|[]\\", "\\.\\*\\+\\?\\^\\$\\{\\}\\(\\)\\|\\[\\]\\\\"],
    ["a/b-c", "a/b-c"],
    ["é😀", "é😀"],
  ])("%j → %j", (text, expected) => {
    expect(escapeRegExp(text)).toBe(expected);
  });

  it("makes any text match itself and only itself", () => {
    for (const text of [".*+?^${}()|[]\\", "a.b", "(a|b)*", "日本.語"]) {
      const re = new RegExp(`^${escapeRegExp(text)}$`, "u");
      expect(re.test(text)).toBe(true);
      expect(re.test(`${text}x`)).toBe(false);
    }
    expect(new RegExp(`^${escapeRegExp("a.b")}$`).test("axb")).toBe(false);
  });
});
