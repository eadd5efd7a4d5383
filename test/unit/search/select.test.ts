/**
 * Selection (src/search/select.ts) keeps exactly what a full sort would:
 * the k best, ties by id (or by the ids' places), through every path; and
 * its sampled floor lets about twice k values through.
 */
import { describe, expect, it } from "vitest";
import { floorOfSample, inRankOrder, sampledFloor, sampleStep, selectBest } from "../../../src/search/select.js";

describe("the sampled floor", () => {
  it("guesses a floor that about twice k values reach, and none when most are wanted", () => {
    let seed = 11;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 100_000) / 100_000;
    for (const n of [1000, 10_000, 100_000]) {
      const values = Float32Array.from({ length: n }, () => next() * 2 - 1);
      for (const k of [10, 100]) {
        const floor = sampledFloor(values, k);
        const reach = values.filter((v) => v >= floor).length;
        expect(reach).toBeGreaterThanOrEqual(k);
        // Twice k, and the sample's margin of eight places (each standing for n / 2048 values), give or take the draw.
        expect(reach).toBeLessThanOrEqual(4 * k + (16 * n) / 2048);
      }
    }
    expect(sampledFloor(new Float32Array(100), 20)).toBe(Number.NEGATIVE_INFINITY);
  });

  it("guesses the same floor from a compact copy of the sample as from the values themselves", () => {
    let seed = 5;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 100_000) / 100_000;
    for (const n of [5000, 40_000]) {
      const values = Float32Array.from({ length: n }, () => next());
      const step = sampleStep(n);
      const sample = Float32Array.from({ length: Math.ceil(n / step) }, (_, i) => values[i * step]!);
      for (const k of [1, 50, 132]) expect(floorOfSample(sample, sample.length, 1, k, n)).toBe(sampledFloor(values, k));
    }
  });
});

describe("selectBest", () => {
  /** Seeded values with many ties (a few dozen distinct ones), as BM25 gives short documents. */
  function scored(n: number, distinct: number, seed: number): { values: Float64Array; ids: string[] } {
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 1_000_003) / 1_000_003;
    const values = Float64Array.from({ length: n }, () => Math.floor(next() * distinct) / distinct);
    const ids = Array.from({ length: n }, (_, i) => `t${((i * 7919) % n).toString(36)}`);
    return { values, ids };
  }

  it("keeps exactly the k best (ties by id) of a full sort, through each path: most wanted, a floor, ties at it, a sample that misleads", () => {
    for (const [n, distinct] of [
      [0, 5],
      [7, 3],
      [500, 33],
      [5000, 40],
      [20_000, 1_000_000],
      [20_000, 2],
    ] as const) {
      const { values, ids } = scored(n, distinct, n + distinct);
      const reference = Array.from(values.keys()).sort((a, b) => values[b]! - values[a]! || (ids[a]! < ids[b]! ? -1 : 1));
      const ranks = new Int32Array(n);
      [...ids.keys()].sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1)).forEach((i, place) => (ranks[i] = place));
      for (const k of [0, 1, 10, 100, 132, n, n + 3]) {
        for (const ties of [{ id: (i: number) => ids[i]! }, { id: (i: number) => ids[i]!, rank: (i: number) => ranks[i]! }]) {
          const picked = inRankOrder(selectBest(values, n, k, ties), (i) => values[i]!, ties);
          expect(picked).toEqual(reference.slice(0, Math.max(0, k)));
          // A floor far too high (a sample that misled): the same k, from the heap over all of them.
          if (k > 0 && n > 8 * k) expect(inRankOrder(selectBest(values, n, k, ties, 2), (i) => values[i]!, ties)).toEqual(reference.slice(0, k));
        }
      }
    }
  });
});

describe("inRankOrder", () => {
  it("orders indices as a full sort does (a higher value first, ties by id or by the ids' places), at every length", () => {
    let seed = 17;
    const next = () => ((seed = (seed * 1103515245 + 12345) >>> 0) % 1_000_003) / 1_000_003;
    for (const n of [0, 1, 2, 23, 24, 25, 100, 132, 1000]) {
      for (const distinct of [2, 7, 1_000_000]) {
        const values = Float64Array.from({ length: n }, () => Math.floor(next() * distinct) / distinct);
        const ids = Array.from({ length: n }, (_, i) => `t${((i * 7919 + 3) % 10_007).toString(36)}`);
        const ranks = new Int32Array(n);
        [...ids.keys()].sort((a, b) => (ids[a]! < ids[b]! ? -1 : 1)).forEach((i, place) => (ranks[i] = place));
        const reference = [...values.keys()].sort((a, b) => values[b]! - values[a]! || (ids[a]! < ids[b]! ? -1 : 1));
        // Given in a shuffled order, and already sorted, and reversed: the same result.
        const shuffled = [...values.keys()].sort(() => next() - 0.5);
        for (const given of [shuffled, [...reference], [...reference].reverse()]) {
          expect(inRankOrder([...given], (i) => values[i]!, { id: (i) => ids[i]! })).toEqual(reference);
          expect(inRankOrder([...given], (i) => values[i]!, { id: (i) => ids[i]!, rank: (i) => ranks[i]! })).toEqual(reference);
        }
      }
    }
  });
});
