/**
 * Picking the k best of many scored entries (ties by id) without a heap
 * push per entry: a floor guessed from an evenly spread sample, so only the
 * few values that reach it are looked at again; the k-th best of those by
 * quickselect; ids read only to break ties at it. The vector scan (its
 * sample drawn by the kernel as it scores) and BM25 (every match's score)
 * both pick their candidates this way; TopK (top-k.ts) is the fallback
 * when a sample misleads, and the filtered scan.
 */
import { compareIds, TopK } from "./top-k.js";

/**
 * How entries of the same score are ordered: by id (`id(i)`), or, where
 * the caller keeps each id's place in id order, by that number (`rank(i)`:
 * the same order without comparing strings).
 */
export interface TieOrder {
  id: (i: number) => string;
  rank?: (i: number) => number;
}

const tieCompare = ({ id, rank }: TieOrder): ((a: number, b: number) => number) => (rank ? (a, b) => rank(a) - rank(b) : (a, b) => compareIds(id(a), id(b)));

/** Values drawn for a sampled floor: enough that its guess is rarely short, few enough to look at in microseconds. */
const SAMPLE = 2048;

/** Every how many values one is drawn, of `n`: the sample a floor is guessed from is values 0, step, 2·step… */
export const sampleStep = (n: number): number => Math.max(1, Math.floor(n / SAMPLE));

/**
 * A floor near the k-th largest of `values`, from an evenly spread sample:
 * about twice k of them reach it (so what reaches it is a short list to
 * sort), and when fewer than k do (a sample can mislead), the caller looks
 * again without it. -Infinity (no floor) when most values are wanted anyway.
 */
export function sampledFloor(values: ArrayLike<number>, k: number, n = values.length): number {
  return floorOfSample(values, n, sampleStep(n), k, n);
}

/**
 * The same floor from the first `length` of `sample`, one value drawn every
 * `step`, all of them drawn from `n` values: the values themselves (length
 * n, step sampleStep(n)), or a copy of just the ones drawn (step 1), as the
 * int8 matrix keeps while it scores (kernel/dot-i8.ts).
 */
export function floorOfSample(sample: ArrayLike<number>, length: number, step: number, k: number, n: number): number {
  if (k <= 0 || k * 8 >= n) return Number.NEGATIVE_INFINITY;
  const drawn = Math.ceil(length / step);
  // The k-th largest is at about this place from the top of the sample; twice as deep, and a few more, to be safe.
  const rank = Math.min(drawn, Math.ceil(((2 * k) / n) * drawn) + 8);
  // The sample's `rank` largest in a min-heap (its root the smallest of them): a value below the root costs one comparison.
  const heap = new Float64Array(rank).fill(Number.NEGATIVE_INFINITY);
  for (let i = 0; i < length; i += step) {
    const v = sample[i]!;
    if (v <= heap[0]!) continue;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= rank) break;
      const child = left + 1 < rank && heap[left + 1]! < heap[left]! ? left + 1 : left;
      if (heap[child]! >= v) break;
      heap[at] = heap[child]!;
      at = child;
    }
    heap[at] = v;
  }
  return heap[0]!;
}

/**
 * The indices of the `k` best of the first `n` values (of the same value,
 * the smaller id: `ties`), in no particular order. Under a sampled floor
 * (above) only the few values that reach it are looked at again: the k-th
 * best among them found by quickselect over their numbers, and ids read
 * only to break a tie there. When fewer than k reach it, or most are
 * wanted anyway, a heap over all of them.
 */
export function selectBest(values: ArrayLike<number>, n: number, k: number, ties: TieOrder, floor = sampledFloor(values, k, n)): number[] {
  if (k <= 0) return [];
  // Most are wanted: the k-th best of all of them.
  if (floor === Number.NEGATIVE_INFINITY) {
    const all: number[] = [];
    for (let i = 0; i < n; i++) all.push(i);
    return n <= k ? all : bestAmong(all, values, k, ties);
  }
  const above: number[] = [];
  const tied: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v > floor) above.push(i);
    else if (v === floor) tied.push(i);
  }
  if (above.length >= k) return bestAmong(above, values, k, ties);
  // Every value above the floor, and of those at it the smallest ids.
  if (above.length + tied.length >= k) return above.concat(smallestIds(tied, k - above.length, ties));
  // The sample misled: a heap over all of them.
  const best = new TopK(k);
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (best.admits(v)) best.push(ties.id(i), v, i);
  }
  return best.sorted().map(({ row }) => row);
}

/** The `k` best of these indices (at least k of them) by value, ties by id, in no particular order. */
export function bestAmong(indices: ArrayLike<number>, values: ArrayLike<number>, k: number, ties: TieOrder): number[] {
  const copy = new Float64Array(indices.length);
  for (let j = 0; j < indices.length; j++) copy[j] = values[indices[j]!]!;
  const kth = kthLargest(copy, k);
  const kept: number[] = [];
  const tied: number[] = [];
  for (let j = 0; j < indices.length; j++) {
    const i = indices[j]!;
    const v = values[i]!;
    if (v > kth) kept.push(i);
    else if (v === kth) tied.push(i);
  }
  return kept.concat(smallestIds(tied, k - kept.length, ties));
}

/** The k-th largest of `values` (1 ≤ k ≤ length), reordering them: quickselect, a pivot the median of three. */
function kthLargest(values: Float64Array, k: number): number {
  const target = values.length - k;
  let lo = 0;
  let hi = values.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const [a, b, c] = [values[lo]!, values[mid]!, values[hi]!];
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const t = values[i]!;
        values[i++] = values[j]!;
        values[j--] = t;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return values[target]!;
  }
  return values[target]!;
}

/** The `count` of these indices with the smallest ids (all of them when they are no more). */
function smallestIds(indices: number[], count: number, ties: TieOrder): number[] {
  if (indices.length <= count) return indices;
  return indices.sort(tieCompare(ties)).slice(0, count);
}

/** Indices in rank order, in place: a higher value first, and of the same value the smaller id. */
export function inRankOrder(indices: number[], valueOf: (i: number) => number, ties: TieOrder): number[] {
  const tie = tieCompare(ties);
  return indices.sort((a, b) => valueOf(b) - valueOf(a) || tie(a, b));
}
