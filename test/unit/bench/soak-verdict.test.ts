/**
 * bench/soak/verdict.ts: the soak's rule for "level or growing" on synthetic
 * series: a least-squares line over the last half of the run, its growth
 * against max(relative × mean, floor).
 */
import { describe, expect, it } from "vitest";
import { lastHalf, slope, verdict, type Sample, type TrendRule } from "../../../src/bench/soak/verdict.js";

/** One sample a minute for `minutes`, the value given by `at(minute, index)`. */
const series = (minutes: number, at: (minute: number, i: number) => number): Sample[] =>
  Array.from({ length: minutes + 1 }, (_, i) => ({ t: i * 60, v: at(i, i) }));

const HEAP: TrendRule = { relative: 0.1, floor: 2 };
const COUNT: TrendRule = { relative: 0, floor: 1 };

describe("slope and lastHalf", () => {
  it("fits a straight line exactly, per second", () => {
    expect(slope(series(4, (m) => 10 + 3 * m))).toBeCloseTo(3 / 60, 12);
  });

  it("is 0 for a single sample or a flat series", () => {
    expect(slope([{ t: 5, v: 9 }])).toBe(0);
    expect(slope(series(5, () => 7))).toBe(0);
  });

  it("keeps the samples from the midpoint of the run on", () => {
    expect(lastHalf(series(10, (m) => m)).map((s) => s.t / 60)).toEqual([5, 6, 7, 8, 9, 10]);
  });
});

describe("verdict", () => {
  it.each<[string, Sample[], TrendRule, string]>([
    ["a steady leak (20 MB a minute from 100 MB)", series(10, (m) => 100 + 20 * m), HEAP, "growing"],
    ["a warm-up that plateaus in the first half", series(10, (m) => (m < 4 ? 50 + 12 * m : 100)), HEAP, "level"],
    ["a plateau with GC noise of ±3 MB", series(10, (_, i) => 100 + [0, 3, -3, 2, -2, 1][i % 6]!), HEAP, "level"],
    ["a sawtooth around a level (sessions swept in waves)", series(12, (_, i) => 40 + 8 * (i % 3)), { relative: 0.25, floor: 8 }, "level"],
    ["growth under the floor (a heap read in whole megabytes)", series(10, (m) => 20 + (m >= 8 ? 1 : 0)), HEAP, "level"],
    ["a heap shrinking after a burst", series(10, (m) => 200 - 15 * m), HEAP, "falling"],
    ["a child process left behind now and then", series(10, (m) => 5 + Math.floor(m / 2)), COUNT, "growing"],
    ["a backend seen restarting once", series(10, (m) => (m === 7 ? 4 : 5)), COUNT, "level"],
    ["a file that never changes", series(10, () => 24), { relative: 0.1, floor: 1 }, "level"],
  ])("%s: %s", (_name, samples, rule, trend) => {
    expect(verdict(samples, rule).trend).toBe(trend);
  });

  it("needs three samples in the last half", () => {
    const v = verdict(
      series(3, (m) => 100 * m),
      HEAP,
    );
    expect(v).toMatchObject({ trend: "too short", points: 2 });
  });

  it("tolerates a share of the mean, or the floor when that is larger", () => {
    expect(
      verdict(
        series(10, () => 500),
        HEAP,
      ).tolerance,
    ).toBe(50);
    expect(
      verdict(
        series(10, () => 5),
        HEAP,
      ).tolerance,
    ).toBe(2);
  });

  it("reports growth as the slope times the last half's span", () => {
    const v = verdict(
      series(10, (m) => 100 + 20 * m),
      HEAP,
    );
    expect(v.slopePerMinute).toBeCloseTo(20, 9);
    expect(v.growth).toBeCloseTo(100, 9);
    expect(v.mean).toBeCloseTo(250, 9);
  });

  it("sees a slow leak only over a run long enough to show it: 5 % a minute is level over 4 minutes, growing over 10", () => {
    const leak = (minutes: number) => series(minutes, (m) => 100 * (1 + 0.05 * m));
    expect(verdict(leak(4), HEAP).trend).toBe("level");
    expect(verdict(leak(10), HEAP).trend).toBe("growing");
  });
});
