import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { eachWord, splitByPattern, splitWords } from "../../../src/text/analyze.js";

/** The clause breaks as a pattern (what eachWord's ASCII scan must agree with). */
const CLAUSE_BREAK = /[.!?;,:](?:\s|$)|[()[\]{}"\n\r\t|]/u;

function byPattern(text: string): [string, boolean][] {
  return text.split(CLAUSE_BREAK).flatMap((clause) => splitByPattern(clause).map((raw, i): [string, boolean] => [raw, i === 0]));
}

function scanned(text: string): [string, boolean][] {
  const out: [string, boolean][] = [];
  eachWord(text, (raw, fresh) => out.push([raw, fresh]));
  return out;
}

// Characters the rules care about, often: letters of both cases, digits, the clause marks and spaces.
const asciiText = fc.string({
  unit: fc.constantFrom(..."aAbBzZxXyY019 .,;:!?-_/()[]{}\"|\t\n\r\v\f'`~@#$%^&*+=<>".split("")),
  maxLength: 40,
});

describe("words: the hand-written ASCII scan agrees with the patterns", () => {
  it("splits as the patterns do, and marks the same clause breaks", () => {
    fc.assert(
      fc.property(asciiText, (text) => {
        expect(splitWords(text)).toEqual(splitByPattern(text));
        // A clause of no words leaves no mark: compare where words follow a break.
        expect(scanned(text)).toEqual(byPattern(text).map(([raw, fresh], i) => [raw, fresh || i === 0]));
      }),
      { numRuns: 20_000 },
    );
  });

  it("agrees on names and sentences tools are written in", () => {
    for (const text of [
      "HTMLParser getUserID readTextFile v1.2.3 file.txt",
      "Reads a file. Then writes it: carefully (maybe) | twice",
      "XMLHttpRequest URLs GUID ABCdef ABCd aBCde x9Y 9Z",
      "end with a stop.",
    ])
      expect(scanned(text)).toEqual(byPattern(text).map(([raw, fresh], i) => [raw, fresh || i === 0]));
    expect(splitWords("HTMLParser getUserID")).toEqual(["HTML", "Parser", "get", "User", "ID"]);
  });

  it("takes text beyond ASCII through the patterns", () => {
    expect(splitWords("Café crème déjàVu")).toEqual(["Café", "crème", "déjà", "Vu"]);
    expect(scanned("Größe: prüfen (jetzt)")).toEqual([
      ["Größe", true],
      ["prüfen", true],
      ["jetzt", true],
    ]);
  });
});
