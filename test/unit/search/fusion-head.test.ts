/** Fusion that pages (fuseHead), a request's parts (query-parts.ts), and the built-in table as shipped. */
import { describe, expect, it } from "vitest";
import { BUILTIN_MODEL_FILE, loadBuiltinEmbedder } from "../../../src/embed/builtin.js";
import { fuseHead, reciprocalRankFusion } from "../../../src/search/fusion.js";
import { fuseParts, queryParts } from "../../../src/search/query-parts.js";
import type { Ranked } from "../../../src/search/types.js";

const list = (...ids: string[]): Ranked[] => ids.map((id, i) => ({ id, score: 100 - i }));

describe("fuseHead", () => {
  const lexical = list(...Array.from({ length: 30 }, (_, i) => `t${i}`));
  const dense = list("t25", "x1", "t3");

  it("fuses the heads, then follows the first list in its own order", () => {
    const hits = fuseHead(
      [
        { hits: lexical, weight: 1 },
        { hits: dense, weight: 1 },
      ],
      3,
      10,
      40,
    );
    // t25 is past the lexical head: it enters through the dense list, and only once.
    expect(hits.filter((h) => h.id === "t25")).toHaveLength(1);
    expect(hits.slice(0, 12).map((h) => h.id)).toContain("x1");
    // Past the fused head, the lexical order goes on.
    const tail = hits.slice(hits.findIndex((h) => h.id === "t10"));
    expect(tail.map((h) => h.id)).toEqual(
      lexical
        .slice(10)
        .map((h) => h.id)
        .filter((id) => id !== "t25"),
    );
  });

  it("gives every tool the same place whatever the page asked for", () => {
    const all = fuseHead(
      [
        { hits: lexical, weight: 1 },
        { hits: dense, weight: 0.5 },
      ],
      3,
      10,
      1000,
    );
    for (const top of [5, 12, 20, 31])
      expect(
        fuseHead(
          [
            { hits: lexical, weight: 1 },
            { hits: dense, weight: 0.5 },
          ],
          3,
          10,
          top,
        ),
      ).toEqual(all.slice(0, top));
    expect(new Set(all.map((h) => h.id)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(all[i]!.score).toBeLessThanOrEqual(all[i - 1]!.score);
  });

  it("is plain reciprocal-rank fusion while the lists fit the pool", () => {
    const a = list("a", "b", "c");
    const b = list("c", "d");
    expect(
      fuseHead(
        [
          { hits: a, weight: 1 },
          { hits: b, weight: 2 },
        ],
        3,
        100,
        10,
      ),
    ).toEqual(
      reciprocalRankFusion(
        [
          { hits: a, weight: 1 },
          { hits: b, weight: 2 },
        ],
        3,
        10,
      ),
    );
  });
});

describe("query parts", () => {
  it.each([
    ["read a file", ["read a file"]],
    [
      "Find the anime with ID 87654. Also, can you search for movies?",
      ["Find the anime with ID 87654. Also, can you search for movies?", "Find the anime with ID 87654.", "Also, can you search for movies?"],
    ],
    ["track my package and count its events", ["track my package and count its events", "track my package", "count its events"]],
    ["a. b. c", ["a. b. c"]],
  ])("%j → %j", (query, parts) => {
    expect(queryParts(query)).toEqual(parts);
  });

  it("caps a request at six parts", () => {
    expect(queryParts(Array.from({ length: 20 }, (_, i) => `ask number ${i}.`).join(" "))).toHaveLength(7);
  });

  it("lets a tool that one part names strongly rise above the whole request's weak matches", () => {
    const whole = list("w1", "w2", "w3", "w4", "p");
    const part = list("p");
    const fused = fuseParts(whole, [part], 3, 100, 5).map((h) => h.id);
    expect(fused.indexOf("p")).toBeLessThan(4);
    expect(fuseParts(whole, [], 3, 100, 3)).toEqual(whole.slice(0, 3));
  });
});

describe("the built-in table", () => {
  const embedder = loadBuiltinEmbedder();

  it("ships with the package and loads offline", () => {
    expect(BUILTIN_MODEL_FILE).toMatch(/models[/\\]builtin\.mtvec$/);
    expect(embedder.dimensions).toBe(256);
    expect(embedder.id).toMatch(/^static:builtin:[0-9a-f]{12}$/);
  });

  it("puts a request near the tool that does it, in other words", async () => {
    const [query, weather, invoice, resize] = await embedder.embed(
      [
        "will it rain tomorrow in Paris",
        "get_forecast: daily weather forecast for a city",
        "create an invoice for a customer",
        "resize an image to a given width",
      ],
      "document",
    );
    const cos = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);
    expect(cos(query!, weather!)).toBeGreaterThan(cos(query!, invoice!));
    expect(cos(query!, weather!)).toBeGreaterThan(cos(query!, resize!));
  });

  it("says it cannot load a missing table, and how to go on", () => {
    expect(() => loadBuiltinEmbedder("/nonexistent/builtin.mtvec")).toThrow(/missing from this install.*embedder to false/);
  });
});
