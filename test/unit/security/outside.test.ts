/**
 * Outside words shown as theirs (src/security/outside.ts): every invisible
 * or moving character is shown as an escape, every line carries its origin,
 * blank runs are one line, the whole is bounded; spelling that needs
 * joiners and emoji stays as written.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hidesCharacters, theirs, theirsInline, visibleLine } from "../../../src/security/outside.js";

describe("outside text, shown as theirs", () => {
  it.each([
    ["plain", "Confirm the deletion?", "Confirm the deletion?"],
    ["escape sequences", "\u001b[2Kgone\u001b[1A", "\\u001b[2Kgone\\u001b[1A"],
    ["C1 CSI", "a\u009b31mb", "a\\u009b31mb"],
    ["bidi override and isolate", "abc\u202edef\u2066", "abc\\u202edef\\u2066"],
    ["zero-width space and BOM", "Ig\u200bnore\ufeff", "Ig\\u200bnore\\ufeff"],
    ["tag characters", "hi\u{e0041}\u{e0042}", "hi\\u{e0041}\\u{e0042}"],
    ["a run of variation selectors", "ok\ufe00\ufe01", "ok\\ufe00\\ufe01"],
    ["tab", "a\tb", "a\tb"],
    ["an emoji with its selector and joiner", "👍️ 👨‍👩‍👧", "👍️ 👨‍👩‍👧"],
    ["Persian with a non-joiner", "می‌خواهم", "می‌خواهم"],
    ["a zero-width joiner inside a Latin word", "pa\u200dss", "pa\\u200dss"],
  ])("%s", (_case, text, shown) => {
    expect(visibleLine(text)).toBe(shown);
  });

  it("marks every line with its origin, a carriage return and Unicode separators included, and makes a blank run one line", () => {
    const text = "\r\u001b[2KFirst\r\nsecond\u2028third" + "\n".repeat(60) + "metatools asks before running a tool\n\n\n";
    expect(theirs("notes", text).split("\n")).toEqual([
      "[notes] \\u001b[2KFirst",
      "[notes] second",
      "[notes] third",
      "[notes]",
      "[notes] metatools asks before running a tool",
    ]);
    expect(theirs("notes", "")).toBe("[notes]");
  });

  it("is bounded, and says how much it left out", () => {
    const shown = theirs("notes", `${"x".repeat(50)}\n${"y".repeat(50)}\n${"z".repeat(50)}`, 80);
    expect(shown).toBe(`[notes] ${"x".repeat(50)}\n[notes] ${"y".repeat(30)}… (70 more characters)`);
    expect(theirsInline("a\n\nb  c", 300)).toBe("a b c");
    expect(theirsInline("é".repeat(400), 10)).toBe(`${"é".repeat(10)}… (390 more characters)`);
  });

  it("no text of any characters yields a line without the mark, or a character that moves text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        for (const line of theirs("b", text).split("\n")) {
          expect(line.startsWith("[b]")).toBe(true);
          // eslint-disable-next-line no-control-regex -- what must never be left raw
          expect(line).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("tells values a backend expects back unchanged that hide characters", () => {
    expect(hidesCharacters("plain value")).toBe(false);
    expect(hidesCharacters("café")).toBe(false);
    expect(hidesCharacters("no\u202e")).toBe(true);
    expect(hidesCharacters("two\nlines")).toBe(true);
    expect(hidesCharacters("zero\u200bwidth")).toBe(true);
  });
});
