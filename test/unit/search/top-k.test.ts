/**
 * TopK (src/search/top-k.ts) keeps exactly what a full sort would: the k
 * best, best first, ties by id, whatever order candidates come in.
 */
import { describe, expect, it } from "vitest";
import { TopK } from "../../../src/search/top-k.js";

describe("TopK", () => {
  it("equals sorting everything and taking k, with many ties, for every k", () => {
    let seed = 3;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 1000) / 1000;
    const all = Array.from({ length: 2000 }, (_, i) => ({ id: `t${(i * 7919) % 2000}`, score: Math.round(next() * 20) / 4 }));
    const sorted = [...all].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
    for (const k of [0, 1, 2, 10, 100, 1999, 2000, 5000]) {
      const top = new TopK(k);
      for (const { id, score } of all) if (top.admits(score)) top.push(id, score);
      expect(top.sorted().map(({ id, score }) => ({ id, score }))).toEqual(sorted.slice(0, Math.max(0, k)));
    }
  });
});
