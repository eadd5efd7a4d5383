/**
 * search/fusion.ts fuseSignals: the one function that makes a ranking of the signals' lists. A list of any signal, a
 * made-up one included, moves the ranking as its weight says; a leader alone keeps its own scores; a list that defers
 * steps back as the leader's match grows strong; pinned tools lead; totals are exact over the union.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fuseSignals, type SignalFusion } from "../../../src/search/fusion.js";
import type { SignalList } from "../../../src/search/signals/index.js";
import type { Ranked } from "../../../src/search/types.js";

const ranked = (...ids: string[]): Ranked[] => ids.map((id, i) => ({ id, score: 50 - i }));
const settings: SignalFusion = { k: 3, bm25Confidence: 20, pool: 100, top: 10 };
/** BM25-like: a leader with a wider match set than its hits (`s:extra` matched but was not ranked this deep). */
const words: SignalList = {
  hits: ranked("s:a", "s:b", "s:c", "s:d", "s:e"),
  weight: 1,
  strength: 0,
  matches: { total: 6, counts: new Map([["s", 6]]), contains: (id) => ["s:a", "s:b", "s:c", "s:d", "s:e", "s:extra"].includes(id) },
};
/** A signal that does not exist in src/: say, recent use, which thinks `s:e` and `t:new` are what the query wants. */
const recent = (weight: number, extra: Partial<SignalList> = {}): SignalList => ({ hits: ranked("s:e", "t:new"), weight, ...extra });
const ids = (lists: SignalList[], options: Partial<SignalFusion> = {}) => fuseSignals(lists, { ...settings, ...options }).hits.map((h) => h.id);

describe("fuseSignals", () => {
  it("keeps a leader standing alone as it is: its hits, its own scores, its match set", () => {
    const result = fuseSignals([words], { ...settings, top: 3 });
    expect(result.hits).toEqual(words.hits.slice(0, 3));
    expect(result.total).toBe(6);
    expect(result.counts).toEqual(new Map([["s", 6]]));
  });

  it.each<[number, string[]]>([
    [0, ["s:a", "s:b", "s:c", "s:d", "s:e", "t:new"]],
    [0.2, ["s:a", "s:b", "s:e", "s:c", "s:d", "t:new"]],
    [1.2, ["s:e", "s:a", "t:new", "s:b", "s:c", "s:d"]],
    [4, ["s:e", "t:new", "s:a", "s:b", "s:c", "s:d"]],
  ])("a made-up extra signal of weight %s moves its tools up as far as the weight says", (weight, order) => {
    expect(ids([words, recent(weight)])).toEqual(order);
  });

  it("scores a tool by the sum of weight / (k + rank) over the lists", () => {
    const hits = fuseSignals([words, recent(2)], settings).hits;
    expect(hits.find((h) => h.id === "s:e")!.score).toBeCloseTo(1 / (3 + 5) + 2 / (3 + 1), 12);
    expect(hits.find((h) => h.id === "t:new")!.score).toBeCloseTo(2 / (3 + 2), 12);
  });

  it("divides the weight of a list that defers by 1 + the leader's strength / bm25Confidence", () => {
    const strong = { ...words, strength: 20 };
    expect(ids([strong, recent(2, { defers: true })])).toEqual(ids([words, recent(1)]));
    // A list that does not defer keeps its weight whatever the leader's strength.
    expect(ids([strong, recent(2)])).toEqual(ids([words, recent(2)]));
  });

  it("never moves a list's best tool down as its weight grows", () => {
    const pool = ["n:a", "n:b", "n:c", "n:d", "n:e", "n:f", "n:g"];
    const order = fc.shuffledSubarray(pool, { minLength: 1 });
    // Weights in quarters: steps far above rounding (subnormal weights tie every rank).
    const weight = fc.integer({ min: 0, max: 40 }).map((n) => n / 4);
    fc.assert(
      fc.property(order, order, weight, weight, (lead, extra, w1, w2) => {
        const place = (w: number) =>
          ids(
            [
              { hits: ranked(...lead), weight: 1 },
              { hits: ranked(...extra), weight: w },
            ],
            { top: pool.length },
          ).indexOf(extra[0]!);
        expect(place(Math.max(w1, w2))).toBeLessThanOrEqual(place(Math.min(w1, w2)));
      }),
    );
  });

  it("counts the union of the leader's match set and the other lists' hits, once each", () => {
    const result = fuseSignals([words, recent(1), { hits: ranked("t:new", "u:other", "s:extra"), weight: 1 }], settings);
    expect(result.total).toBe(8);
    expect(result.counts).toEqual(
      new Map([
        ["s", 6],
        ["t", 1],
        ["u", 1],
      ]),
    );
    expect(result.contains?.("s:extra")).toBe(true);
    expect(result.contains?.("v:none")).toBe(false);
  });

  it("puts a pinned list's tools first, in the order the ranking gives them, and counts one it did not rank", () => {
    const named: SignalList = { hits: ranked("v:named", "s:d", "s:b"), weight: 0, pinned: true };
    const result = fuseSignals([words, named], { ...settings, top: 4 });
    expect(result.hits.map((h) => h.id)).toEqual(["s:b", "s:d", "v:named", "s:a"]);
    expect(result.hits.slice(0, 3).every((h) => h.score === words.hits[0]!.score)).toBe(true);
    expect(result.total).toBe(7);
    expect(result.counts.get("v")).toBe(1);
  });
});
