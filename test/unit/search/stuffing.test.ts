/**
 * Keyword stuffing: a word said again and again in one field of a tool
 * counts at most TUNING.fieldRepeatCap times in the index, and TUNING.embedRepeatCap
 * times in the text the semantic leg embeds, so repeating a request's
 * words does not win it.
 */
import { describe, expect, it } from "vitest";
import { Bm25Ranker } from "../../../src/search/bm25.js";
import { capRepeats, capRepeatsByPattern, embeddingText } from "../../../src/search/documents.js";
import { InvertedIndex } from "../../../src/search/inverted.js";
import type { IndexedDoc } from "../../../src/search/segment.js";
import { TUNING } from "../../../src/search/tuning.js";
import { toolRecord } from "../../helpers/records.js";

/** Replaces a segment with these documents. */
function put(index: InvertedIndex, key: string, docs: readonly IndexedDoc[]): void {
  index.replace(key, docs.length, (d) => docs[d]!);
}

const query = (...terms: string[]) => ({ terms: new Map(terms.map((t) => [t, 1])), words: new Set(terms) });

describe("keyword stuffing", () => {
  it(`a word repeated past ${TUNING.fieldRepeatCap} times in a field scores no higher, and lower as the field grows`, () => {
    const scores = [1, TUNING.fieldRepeatCap, 10, 50].map((times) => {
      const index = new InvertedIndex();
      put(index, "s", [
        { id: "s:stuffed", fields: [{ terms: Array.from({ length: times }, () => "tree"), weight: 1 }] },
        { id: "s:other", fields: [{ terms: ["leaf", "root"], weight: 1 }] },
      ]);
      return index.score(query("tree"), TUNING.score, { top: 5 }).hits[0]!.score;
    });
    expect(scores[1]).toBeGreaterThan(scores[0]!);
    expect(scores[2]).toBeLessThanOrEqual(scores[1]!);
    expect(scores[3]).toBeLessThan(scores[2]!);
  });

  it("a description repeating a request fifty times does not outrank the tool named for it", () => {
    const ranker = new Bm25Ranker();
    ranker.replaceNamespace("fs", [
      toolRecord("fs", "directory_tree", { description: "Get a recursive tree view of files and directories as a JSON structure." }),
      toolRecord("fs", "list_directory", { description: "Get a detailed listing of all files and directories in a specified path." }),
      toolRecord("fs", "read_file", { description: "Read the complete contents of a file from the file system." }),
    ]);
    ranker.replaceNamespace("evil", [toolRecord("evil", "sitemap", { description: `Lists a site map. ${"directory tree list ".repeat(50)}` })]);
    for (const q of ["list the directory tree", "show the directory tree"]) {
      const hits = ranker.rank(q, { top: 5 }).hits.map((h) => h.id);
      expect(hits[0], q).toBe("fs:directory_tree");
      expect(hits, q).toContain("evil:sitemap");
    }
  });

  it("the embedded text keeps each word its first few times, and honest text whole", () => {
    expect(capRepeats("tree Tree TREE tree, list", 2)).toBe("tree Tree , list");
    const honest = "Read the complete contents of a file from the file system.";
    expect(capRepeats(honest, 2)).toBe(honest);
    const stuffed = embeddingText({ name: "sitemap", summary: "", description: "directory tree ".repeat(50), tags: [], aliases: [] });
    expect(stuffed.match(/directory/g)).toHaveLength(TUNING.embedRepeatCap);
  });

  it("caps ASCII text by hand exactly as the pattern does, and other text by the pattern", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pieces = ["tree", "Tree", "TREE", "a", "x9", "9", " ", "  ", "\t", ",", "-", "_", "file", "File_2", ".", "\n"];
    for (let n = 0; n < 500; n++) {
      const text = Array.from({ length: next() % 40 }, () => pieces[next() % pieces.length]).join("");
      for (const max of [1, 2, 3]) expect(capRepeats(text, max), JSON.stringify(text)).toBe(capRepeatsByPattern(text, max));
    }
    expect(capRepeats("café café café", 1)).toBe("café ");
  });
});
