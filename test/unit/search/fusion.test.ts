/**
 * search/fusion.ts: weighted reciprocal-rank fusion (exact scores, weights, k, ties, top) and fuseHead's edges
 * (no lists, the pool boundary, the tail's falling scores). The paging properties of fuseHead are in fusion-head.test.ts.
 */
import { describe, expect, it } from "vitest";
import { fuseHead, reciprocalRankFusion, type FusionList } from "../../../src/search/fusion.js";
import type { Ranked } from "../../../src/search/types.js";

/** A ranked list in the given order; the rankers' own scores play no part in fusion. */
const list = (...ids: string[]): Ranked[] => ids.map((id, i) => ({ id, score: 1000 - i * 7.5 }));
const lists = (...entries: [string[], number][]): FusionList[] => entries.map(([ids, weight]) => ({ hits: list(...ids), weight }));

describe("reciprocalRankFusion", () => {
  it.each<[string, FusionList[], number, number, Ranked[]]>([
    ["no lists", [], 60, 10, []],
    ["empty lists", lists([[], 1], [[], 2]), 60, 10, []],
    [
      "one list keeps its order, scored 1/(k + rank)",
      lists([["a", "b", "c"], 1]),
      60,
      10,
      [
        { id: "a", score: 1 / 61 },
        { id: "b", score: 1 / 62 },
        { id: "c", score: 1 / 63 },
      ],
    ],
    [
      "k = 0: 1, 1/2, 1/3",
      lists([["a", "b", "c"], 1]),
      0,
      10,
      [
        { id: "a", score: 1 },
        { id: "b", score: 1 / 2 },
        { id: "c", score: 1 / 3 },
      ],
    ],
    [
      "a weight scales the score",
      lists([["a", "b"], 2.5]),
      0,
      10,
      [
        { id: "a", score: 2.5 },
        { id: "b", score: 1.25 },
      ],
    ],
    [
      "a tool in both lists sums its parts",
      lists([["a", "b"], 1], [["b", "c"], 1]),
      1,
      10,
      [
        { id: "b", score: 1 / 3 + 1 / 2 },
        { id: "a", score: 1 / 2 },
        { id: "c", score: 1 / 3 },
      ],
    ],
    [
      "a heavier list wins the head",
      lists([["a", "b"], 1], [["b", "a"], 3]),
      1,
      10,
      [
        { id: "b", score: 1 / 3 + 3 / 2 },
        { id: "a", score: 1 / 2 + 3 / 3 },
      ],
    ],
    [
      "equal scores are ordered by id",
      lists([["b", "a"], 1], [["a", "b"], 1]),
      1,
      10,
      [
        { id: "a", score: 1 / 2 + 1 / 3 },
        { id: "b", score: 1 / 3 + 1 / 2 },
      ],
    ],
    [
      "ids compare by code unit: upper case before lower, ASCII before accents",
      lists([["é"], 1], [["b"], 1], [["B"], 1]),
      0,
      10,
      [
        { id: "B", score: 1 },
        { id: "b", score: 1 },
        { id: "é", score: 1 },
      ],
    ],
    [
      "a zero weight still lists the tool, last",
      lists([["z"], 0], [["a"], 1]),
      0,
      10,
      [
        { id: "a", score: 1 },
        { id: "z", score: 0 },
      ],
    ],
    [
      "top cuts the fused list",
      lists([["a", "b", "c"], 1], [["d"], 1]),
      0,
      2,
      [
        { id: "a", score: 1 },
        { id: "d", score: 1 },
      ],
    ],
    ["top 0", lists([["a"], 1]), 0, 0, []],
    [
      "an infinite top",
      lists([["a", "b"], 1]),
      0,
      Number.POSITIVE_INFINITY,
      [
        { id: "a", score: 1 },
        { id: "b", score: 0.5 },
      ],
    ],
    [
      "odd ids are plain keys",
      lists([["__proto__", "a:b/c", ""], 1]),
      0,
      10,
      [
        { id: "__proto__", score: 1 },
        { id: "a:b/c", score: 0.5 },
        { id: "", score: 1 / 3 },
      ],
    ],
  ])("%s", (_name, input, k, top, expected) => {
    const fused = reciprocalRankFusion(input, k, top);
    expect(fused.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    fused.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 12));
  });

  it("ranks by rank, never by the lists' own scores", () => {
    const scored: FusionList[] = [
      {
        hits: [
          { id: "a", score: 0.001 },
          { id: "b", score: 0.0009 },
        ],
        weight: 1,
      },
      { hits: [{ id: "c", score: 9e9 }], weight: 1 },
    ];
    expect(reciprocalRankFusion(scored, 1, 10)).toEqual([
      { id: "a", score: 0.5 },
      { id: "c", score: 0.5 },
      { id: "b", score: 1 / 3 },
    ]);
  });

  it("fuses long lists in order, with no tool twice", () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `t${i}`);
    const fused = reciprocalRankFusion(lists([ids, 1], [[...ids].reverse(), 1]), 60, Number.POSITIVE_INFINITY);
    expect(fused).toHaveLength(20_000);
    expect(new Set(fused.map((h) => h.id)).size).toBe(20_000);
    expect(fused.every((h, i) => i === 0 || h.score <= fused[i - 1]!.score)).toBe(true);
    // Symmetric lists: the ends of both lists (t0 and t19999, then t1 and t19998) tie and lead, ordered by id.
    expect(fused.slice(0, 4).map((h) => h.id)).toEqual(["t0", "t19999", "t1", "t19998"]);
  });
});

describe("fuseHead", () => {
  it.each<[string, FusionList[], number, number, number, Ranked[]]>([
    ["no lists", [], 60, 10, 10, []],
    ["an empty first list", lists([[], 1], [["x"], 1]), 0, 10, 10, [{ id: "x", score: 1 }]],
    [
      "the head alone fills the page",
      lists([["a", "b", "c", "d"], 1]),
      0,
      3,
      2,
      [
        { id: "a", score: 1 },
        { id: "b", score: 0.5 },
      ],
    ],
    [
      "the tail goes on below the head's last score",
      lists([["a", "b", "c", "d"], 1], [["x"], 1]),
      0,
      2,
      4,
      [
        { id: "a", score: 1 },
        { id: "x", score: 1 },
        { id: "b", score: 0.5 },
        // floor × pool / (pool + i + 1): 0.5 × 2 / 3.
        { id: "c", score: 1 / 3 },
      ],
    ],
    [
      "the whole tail, falling",
      lists([["a", "b", "c", "d", "e"], 1]),
      0,
      1,
      10,
      [
        { id: "a", score: 1 },
        { id: "b", score: 1 / 2 },
        { id: "c", score: 1 / 3 },
        { id: "d", score: 1 / 4 },
        { id: "e", score: 1 / 5 },
      ],
    ],
    [
      "a tail tool already fused through another list is skipped",
      lists([["a", "b", "c"], 1], [["c"], 1]),
      0,
      1,
      10,
      [
        { id: "a", score: 1 },
        { id: "c", score: 1 },
        { id: "b", score: 1 / 2 },
      ],
    ],
    [
      "tools only in later lists' tails are left out",
      lists([["a"], 1], [["x", "y", "z"], 1]),
      0,
      1,
      10,
      [
        { id: "a", score: 1 },
        { id: "x", score: 1 },
      ],
    ],
    ["top 0", lists([["a", "b"], 1]), 0, 1, 0, []],
  ])("%s", (_name, input, k, pool, top, expected) => {
    const fused = fuseHead(input, k, pool, top);
    expect(fused.map((h) => h.id)).toEqual(expected.map((h) => h.id));
    fused.forEach((h, i) => expect(h.score).toBeCloseTo(expected[i]!.score, 12));
  });

  it("equals plain fusion exactly at the pool boundary, and differs one past it", () => {
    const first = list("a", "b", "c", "d");
    const second = list("d", "c");
    const input = [
      { hits: first, weight: 1 },
      { hits: second, weight: 1 },
    ];
    expect(fuseHead(input, 1, 4, 10)).toEqual(reciprocalRankFusion(input, 1, 10));
    const under = fuseHead(input, 1, 3, 10);
    expect(under.map((h) => h.id)).toEqual(["c", "a", "d", "b"]);
    expect(under).not.toEqual(reciprocalRankFusion(input, 1, 10));
  });
});
