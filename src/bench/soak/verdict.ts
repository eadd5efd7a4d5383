/**
 * The soak's verdict on one resource: level or growing over the last half
 * of the run. The rule, in full:
 *
 * 1. Keep the samples taken in the last half of the run (time ≥ the
 *    midpoint between the first and the last sample). The first half is
 *    warm-up: pools, JIT, caches and the first expiries fill it, and a
 *    server that plateaus after them is not leaking.
 * 2. Fit a least-squares line to them; its slope times the span of those
 *    samples is the growth over the last half.
 * 3. The tolerance is the rule's `relative` share of the last half's mean,
 *    and at least its `floor` (in the series' unit): a count that moves by
 *    one, or a heap read in whole megabytes, is not a trend.
 * 4. growth > tolerance: growing; growth < −tolerance: falling; otherwise
 *    level. Fewer than `MIN_POINTS` samples in the last half: too short.
 *
 * Pure: the same samples always give the same verdict (test/unit/bench).
 */

export interface Sample {
  /** Seconds since the run started. */
  t: number;
  v: number;
}

export interface TrendRule {
  /** Growth allowed over the last half, as a share of its mean (0.1 = 10 %). */
  relative: number;
  /** Growth always allowed, in the series' unit. */
  floor: number;
}

export type Trend = "level" | "growing" | "falling" | "too short";

export interface Verdict {
  trend: Trend;
  /** Least-squares slope over the last half, per minute. */
  slopePerMinute: number;
  /** Slope × the last half's span. */
  growth: number;
  tolerance: number;
  /** Mean over the last half. */
  mean: number;
  /** Samples in the last half. */
  points: number;
}

export const MIN_POINTS = 3;

export function lastHalf(samples: readonly Sample[]): Sample[] {
  if (!samples.length) return [];
  const middle = (samples[0]!.t + samples[samples.length - 1]!.t) / 2;
  return samples.filter((s) => s.t >= middle);
}

/** The least-squares slope of v over t (0 for fewer than two distinct times). */
export function slope(samples: readonly Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanT = samples.reduce((a, s) => a + s.t, 0) / n;
  const meanV = samples.reduce((a, s) => a + s.v, 0) / n;
  let num = 0;
  let den = 0;
  for (const s of samples) {
    num += (s.t - meanT) * (s.v - meanV);
    den += (s.t - meanT) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function verdict(samples: readonly Sample[], rule: TrendRule): Verdict {
  const half = lastHalf(samples);
  const mean = half.length ? half.reduce((a, s) => a + s.v, 0) / half.length : 0;
  const tolerance = Math.max(rule.relative * Math.abs(mean), rule.floor);
  if (half.length < MIN_POINTS) return { trend: "too short", slopePerMinute: 0, growth: 0, tolerance, mean, points: half.length };
  const perSecond = slope(half);
  const growth = perSecond * (half[half.length - 1]!.t - half[0]!.t);
  const trend: Trend = growth > tolerance ? "growing" : growth < -tolerance ? "falling" : "level";
  return { trend, slopePerMinute: perSecond * 60, growth, tolerance, mean, points: half.length };
}
