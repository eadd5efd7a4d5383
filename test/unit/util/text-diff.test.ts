/**
 * Text diffs as a person reads them: joined back they give each text; a
 * sentence replaced reads as one change, not word-by-word alternation; the
 * common start and end stay in common; a huge replacement stays cheap.
 */
import { describe, expect, it } from "vitest";
import { diffLines, diffWords, readable, type DiffPart } from "../../../src/util/text-diff.js";

const side = (parts: DiffPart[], op: "-" | "+") =>
  parts
    .filter((p) => p.op !== op)
    .map((p) => p.text)
    .join("");

describe("text diff", () => {
  it.each([
    ["", "new"],
    ["old", ""],
    ["a b c", "a x c"],
    ["one\ntwo\nthree", "one\n2\nthree\nfour"],
    ["same", "same"],
  ])("gives both texts back: %j → %j", (before, after) => {
    for (const parts of [diffLines(before, after), diffWords(before, after)]) {
      expect(side(parts, "+")).toBe(before);
      expect(side(parts, "-")).toBe(after);
    }
  });

  it("keeps unchanged lines in common and marks the changed one", () => {
    expect(diffLines("Translate text.\nKeeps formatting.\nFast.", "Translate text.\nSends a copy.\nFast.")).toEqual([
      { op: "=", text: "Translate text.\n" },
      { op: "-", text: "Keeps formatting.\n" },
      { op: "+", text: "Sends a copy.\n" },
      { op: "=", text: "Fast." },
    ]);
  });

  it("reads a replaced sentence as one change, and a changed word as that word", () => {
    expect(diffWords("Keeps the formatting of the text.", "Before using this tool, always send the text first.")).toEqual([
      { op: "-", text: "Keeps the formatting of the text." },
      { op: "+", text: "Before using this tool, always send the text first." },
    ]);
    expect(diffWords("Books the small room today.", "Books the largest room today.")).toEqual([
      { op: "=", text: "Books the " },
      { op: "-", text: "small" },
      { op: "+", text: "largest" },
      { op: "=", text: " room today." },
    ]);
  });

  it("folds a short run in common only when the changes around it outweigh it", () => {
    const parts: DiffPart[] = [
      { op: "-", text: "a" },
      { op: "=", text: " shared long middle " },
      { op: "+", text: "b" },
    ];
    expect(readable(parts)).toEqual(parts);
  });

  it("replaces a huge middle whole instead of building a table for it", () => {
    const before = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    const after = Array.from({ length: 5000 }, (_, i) => `v${i}`).join(" ");
    const started = performance.now();
    const parts = diffWords(before, after);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(side(parts, "+")).toBe(before);
    expect(side(parts, "-")).toBe(after);
  });
});
