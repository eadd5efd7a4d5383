/**
 * The search layer on its own: the analyzer as a table, the inverted
 * index's invariants as properties checked against a brute-force model,
 * and the ranker on small catalogs whose right answer is clear.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolRecord } from "../../../src/model/tool.js";
import { createAnalyzer, splitWords } from "../../../src/text/analyze.js";
import { Bm25Ranker } from "../../../src/search/bm25.js";
import { InvertedIndex } from "../../../src/search/inverted.js";
import type { IndexedDoc } from "../../../src/search/segment.js";
import { TUNING } from "../../../src/search/tuning.js";
import { toolRecord } from "../../helpers/records.js";

/** Replaces a segment with these documents. */
function put(index: InvertedIndex, key: string, docs: readonly IndexedDoc[]): void {
  index.replace(key, docs.length, (d) => docs[d]!);
}

describe("analyzer", () => {
  const analyzer = createAnalyzer();

  it.each([
    ["read_text_file", ["read", "text", "file"]],
    ["getUserById", ["get", "User", "By", "Id"]],
    ["HTMLParser", ["HTML", "Parser"]],
    ["GUIDs and URLs", ["GUIDs", "and", "URLs"]],
    ["list-directory.v2", ["list", "directory", "v2"]],
    ["Café déjà-vu", ["Café", "déjà", "vu"]],
  ])("splits %j into words", (text, words) => {
    expect(splitWords(text)).toEqual(words);
  });

  it("stems, folds accents and drops stop words", () => {
    expect(analyzer.word("Creating")).toBe("creat");
    expect(analyzer.word("issues")).toBe(analyzer.word("issue"));
    expect(analyzer.word("Café")).toBe("cafe");
    expect(analyzer.word("the")).toBeNull();
    expect(analyzer.word("x")).toBeNull();
    expect(analyzer.word("3")).toBe("3");
  });

  it("joins neighbouring words, so compounds match either way, but not across sentences", () => {
    expect(analyzer.analyze("generate mind maps")).toContain(analyzer.word("mindmaps"));
    expect(analyzer.analyze("the file name")).toContain(analyzer.word("filename"));
    expect(analyzer.analyze("read files. Write logs")).not.toContain(analyzer.word("fileswrite"));
  });

  it("drops request framing from queries only", () => {
    const text = "Could you provide me with detailed information about weather";
    expect(analyzer.analyzeQuery(text)).toEqual([analyzer.word("weather")]);
    expect(analyzer.analyze(text)).toContain(analyzer.word("provide"));
  });
});

/** A tiny corpus generator: documents over a small vocabulary, in a few segments. */
const vocabulary = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"];
const docsArb = fc.array(
  fc.record({
    segment: fc.constantFrom("s1", "s2", "s3"),
    name: fc.subarray(vocabulary, { minLength: 1 }),
    body: fc.array(fc.constantFrom(...vocabulary), { maxLength: 12 }),
  }),
  { minLength: 1, maxLength: 40 },
);
const queryArb = fc.subarray(vocabulary, { minLength: 1, maxLength: 4 });

function build(docs: { segment: string; name: string[]; body: string[] }[]): { index: InvertedIndex; all: (IndexedDoc & { segment: string })[] } {
  const index = new InvertedIndex();
  const all = docs.map((d, i) => ({
    id: `${d.segment}:t${i}`,
    segment: d.segment,
    fields: [
      { terms: d.name, weight: 3 },
      { terms: d.body, weight: 1 },
    ],
  }));
  for (const segment of ["s1", "s2", "s3"])
    put(
      index,
      segment,
      all.filter((d) => d.segment === segment),
    );
  return { index, all };
}

const queryOf = (terms: string[]) => ({ terms: new Map(terms.map((t) => [t, 1])), words: new Set(terms) });
const matches = (doc: IndexedDoc, terms: string[]) => doc.fields.some((f) => f.terms.some((t) => terms.includes(t)));

describe("inverted index (properties)", () => {
  it("total and per-segment counts are exact: every document holding a query term, and no other", () => {
    fc.assert(
      fc.property(docsArb, queryArb, (docs, terms) => {
        const { index, all } = build(docs);
        const result = index.score(queryOf(terms), TUNING.score, { top: 5 });
        const expected = all.filter((d) => matches(d, terms));
        expect(result.total).toBe(expected.length);
        for (const segment of ["s1", "s2", "s3"]) {
          expect(result.counts.get(segment) ?? 0).toBe(expected.filter((d) => d.segment === segment).length);
        }
      }),
    );
  });

  it("the top k are the first k of the full ranking, best first, ties by id", () => {
    fc.assert(
      fc.property(docsArb, queryArb, fc.integer({ min: 0, max: 10 }), (docs, terms, k) => {
        const { index } = build(docs);
        const full = index.score(queryOf(terms), TUNING.score, { top: Number.MAX_SAFE_INTEGER }).hits;
        for (let i = 1; i < full.length; i++) {
          const [a, b] = [full[i - 1]!, full[i]!];
          expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true);
        }
        expect(index.score(queryOf(terms), TUNING.score, { top: k }).hits).toEqual(full.slice(0, k));
      }),
    );
  });

  it("a deep page of thousands of tied matches is the full ranking's head, in one segment and across several", () => {
    // 3,000 documents over a few words: scores take a few dozen values, each shared by many documents.
    const docs = Array.from({ length: 3000 }, (_, i) => ({
      segment: ["s1", "s2", "s3"][i % 3]!,
      name: [vocabulary[i % 5]!],
      body: Array.from({ length: i % 7 }, (_, j) => vocabulary[(i + j) % vocabulary.length]!),
    }));
    for (const { index } of [build(docs), build(docs.map((d) => ({ ...d, segment: "s1" })))]) {
      for (const terms of [["alpha"], ["beta", "gamma"], ["alpha", "delta", "omega"]]) {
        const full = index.score(queryOf(terms), TUNING.score, { top: Number.MAX_SAFE_INTEGER }).hits;
        for (let i = 1; i < full.length; i++) {
          const [a, b] = [full[i - 1]!, full[i]!];
          expect(a.score > b.score || (a.score === b.score && a.id < b.id)).toBe(true);
        }
        for (const k of [5, 16, 17, 100, 132]) expect(index.score(queryOf(terms), TUNING.score, { top: k }).hits).toEqual(full.slice(0, k));
      }
    }
  });

  it("segment filters and accept callbacks narrow hits, total and counts alike", () => {
    fc.assert(
      fc.property(docsArb, queryArb, (docs, terms) => {
        const { index, all } = build(docs);
        const onlyS2 = index.score(queryOf(terms), TUNING.score, { top: 100, namespaces: new Set(["s2"]) });
        expect(onlyS2.total).toBe(all.filter((d) => d.segment === "s2" && matches(d, terms)).length);
        expect(onlyS2.hits.every((h) => h.id.startsWith("s2:"))).toBe(true);
        const even = index.score(queryOf(terms), TUNING.score, { top: 100, accept: (id) => Number(id.split(":t")[1]) % 2 === 0 });
        expect(even.total).toBe(all.filter((d) => Number(d.id.split(":t")[1]) % 2 === 0 && matches(d, terms)).length);
      }),
    );
  });

  it("replacing a segment replaces its documents and the statistics they carried", () => {
    const index = new InvertedIndex();
    put(index, "a", [{ id: "a:1", fields: [{ terms: ["rare"], weight: 1 }] }]);
    put(index, "b", [{ id: "b:1", fields: [{ terms: ["common"], weight: 1 }] }]);
    expect(index.score(queryOf(["rare"]), TUNING.score, { top: 5 }).total).toBe(1);
    put(index, "a", [{ id: "a:2", fields: [{ terms: ["other"], weight: 1 }] }]);
    expect(index.score(queryOf(["rare"]), TUNING.score, { top: 5 }).total).toBe(0);
    expect(index.vocabulary().has("rare")).toBe(false);
    put(index, "a", []);
    expect(index.size).toBe(1);
  });
});

function record(namespace: string, name: string, description: string, params: string[] = []): ToolRecord {
  return toolRecord(namespace, name, {
    summary: description,
    description,
    inputSchema: { type: "object", properties: Object.fromEntries(params.map((p) => [p, { type: "string" }])) },
  });
}

describe("ranker", () => {
  const ranker = new Bm25Ranker();
  ranker.replaceNamespace("github", [
    record("github", "create_issue", "Create a new issue in a repository.", ["owner", "repo", "title"]),
    record("github", "get_issue", "Get an issue by number.", ["owner", "repo", "number"]),
    record("github", "delete_issue", "Delete an issue.", ["owner", "repo", "number"]),
    record("github", "list_pull_requests", "List pull requests of a repository.", ["owner", "repo"]),
  ]);
  ranker.replaceNamespace("travel", [
    record("travel", "find_hotels", "Search hotels in a city by dates and price.", ["city"]),
    record("travel", "find_agency", "Find marketing agencies around the world.", ["service"]),
  ]);
  const top = (query: string) => ranker.rank(query, { top: 3 }).hits.map((h) => h.id);

  it.each([
    ["create an issue", "github:create_issue"],
    ["get issue 42", "github:get_issue"],
    ["pull requests of my repo", "github:list_pull_requests"],
    ["could you help me find a cheap hotel in Rome", "travel:find_hotels"],
  ])("%j ranks %s first", (query, id) => {
    expect(top(query)[0]).toBe(id);
  });

  it("keeps the verb as a tie-breaker between siblings", () => {
    expect(top("delete issue")[0]).toBe("github:delete_issue");
    expect(top("get issue")[0]).toBe("github:get_issue");
  });

  it("ranks a deprecated tool below its replacement, even when its name matches better", () => {
    const files = new Bm25Ranker();
    files.replaceNamespace("fs", [
      record("fs", "read_file", "DEPRECATED: use read_text_file. Read a file."),
      record("fs", "read_text_file", "Read the complete contents of a text file from disk, with optional head and tail line limits."),
    ]);
    expect(files.rank("read file", { top: 2 }).hits.map((h) => h.id)).toEqual(["fs:read_text_file", "fs:read_file"]);
  });

  it("falls back to prefix and typo-tolerant matching, and suggests words as people write them", () => {
    expect(ranker.rank("hotle", { top: 3 }).total).toBe(0);
    expect(ranker.rankRelaxed("hotle", { top: 3 }).hits[0]!.id).toBe("travel:find_hotels");
    expect(ranker.rankRelaxed("repo", { top: 3 }).total).toBeGreaterThan(0);
    expect(ranker.nearTerms("repositry")).toContain("repository");
  });
});
