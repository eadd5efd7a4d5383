/**
 * An inverted index scored with BM25 over weighted fields (BM25F with one
 * shared length normalization): a term's frequency in a tool is the sum of
 * its frequencies in each field times the field's weight, and its IDF is
 * counted over whole tools, so a word rare among names but common in
 * descriptions is not mistaken for a rare word. A word counts at most
 * TUNING.fieldRepeatCap times per field, so repeating it (keyword stuffing)
 * buys nothing.
 *
 * The index is split into segments, one per namespace and keyed by it,
 * replaced whole when a backend's tools change; statistics (document
 * count, average length, document frequencies) are global. Postings live
 * in two flat typed arrays per segment (segment.ts) and a query accumulates
 * scores in one Float64Array per segment, so ranking 100,000 tools stays
 * well under a millisecond at the median.
 */
import { buildSegment, type IndexedDoc, type Segment } from "./segment.js";
import { inRankOrder, selectBest, type TieOrder } from "./select.js";
import { TopK } from "./top-k.js";
import type { RankOptions, RankResult } from "./types.js";

/** A score multiplier per document of a segment (by its place there), per segment key; undefined: 1 (units.ts makes them). */
export type Boosts = (key: string) => ((doc: number) => number) | undefined;

/** Query terms with their weights; `words` are the ones that count toward coordination. */
export interface IndexQuery {
  terms: ReadonlyMap<string, number>;
  words: ReadonlySet<string>;
}

export interface ScoreParams {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalization, 0 (none) to 1 (full). */
  b: number;
  /** BM25+ floor: each matching term adds at least idf × delta. */
  delta: number;
  /** The final score is multiplied by (query words matched)^coordination. */
  coordination: number;
}

export class InvertedIndex {
  private readonly segments = new Map<string, Segment>();
  private readonly df = new Map<string, number>();
  private docCount = 0;
  private totalLength = 0;

  get size(): number {
    return this.docCount;
  }

  /** Every indexed term with its document frequency (for fuzzy and prefix expansion). */
  vocabulary(): ReadonlyMap<string, number> {
    return this.df;
  }

  /**
   * Replaces a segment's documents, `count` of them made one at a time by
   * `docAt` (each analyzed, counted and dropped before the next is made:
   * a namespace's analyzed texts are never all held at once); none removes
   * the segment.
   */
  replace(key: string, count: number, docAt: (d: number) => IndexedDoc): void {
    this.install(key, count ? buildSegment(count, docAt) : undefined);
  }

  /** Replaces a segment with one built before (kept on disk); undefined removes it. */
  install(key: string, segment: Segment | undefined): void {
    const old = this.segments.get(key);
    if (old) this.account(old, -1);
    if (!segment?.ids.length) {
      this.segments.delete(key);
      return;
    }
    this.segments.set(key, segment);
    this.account(segment, 1);
  }

  segment(key: string): Segment | undefined {
    return this.segments.get(key);
  }

  /** Every tool holding a query term, scored; `counts` are per segment. */
  score(query: IndexQuery, params: ScoreParams, options: RankOptions, boosts?: Boosts): RankResult {
    const counts = new Map<string, number>();
    const avgLength = this.docCount ? this.totalLength / this.docCount : 1;
    const weighted = [...query.terms].flatMap(([term, weight]) => {
      const df = this.df.get(term);
      if (!df) return [];
      const idf = Math.log(1 + (this.docCount - df + 0.5) / (df + 0.5));
      return [{ term, idf: idf * weight, word: query.words.has(term) }];
    });
    if (!weighted.length) return { total: 0, hits: [], counts };
    // (words matched)^coordination for each count a query can reach: no power computed per document.
    const coordination = Float64Array.from({ length: query.terms.size + 2 }, (_, w) => Math.max(w, 1) ** params.coordination);
    // Per segment, a bit per document matched: the match set, for `contains`, in an eighth of a byte per tool.
    const matchedBits = new Map<string, Uint8Array>();
    // A short page (BM25 alone, 5 hits): a heap as matches come, most of them turned away by one comparison. A deep one
    // (100, fused with other signals): every match's final score, document and segment kept, the best picked at the end.
    const heap = options.top <= HEAP_TOP ? new TopK(options.top) : undefined;
    const found = foundFor(heap ? 0 : this.docCount);
    const segmentsSeen: Segment[] = [];
    let total = 0;
    for (const [key, segment] of this.segments) {
      if (options.namespaces && !options.namespaces.has(key)) continue;
      const { scores, words, touched } = scratchOf(segment);
      let count = 0;
      const { docs, tfs, starts } = segment;
      const norms = normsOf(segment, params, avgLength);
      for (const { term, idf, word } of weighted) {
        const t = segment.terms.get(term);
        if (t === undefined) continue;
        for (let i = starts[t]!, end = starts[t + 1]!; i < end; i++) {
          const d = docs[i]!;
          const tf = tfs[i]!;
          const norm = norms[d]!;
          if (scores[d] === 0) touched[count++] = d;
          scores[d]! += idf * ((tf * (params.k1 + 1)) / (tf + norm) + params.delta);
          if (word) words[d]!++;
        }
      }
      let matched = 0;
      const seen = segmentsSeen.length;
      const bits = new Uint8Array((segment.ids.length >> 3) + 1);
      const boost = boosts?.(key);
      for (let t = 0; t < count; t++) {
        const d = touched[t]!;
        const score = scores[d]! * coordination[Math.min(words[d]!, coordination.length - 1)]! * segment.priors[d]! * (boost ? boost(d) : 1);
        scores[d] = 0;
        words[d] = 0;
        if (options.accept && !options.accept(segment.ids[d]!)) continue;
        bits[d >> 3]! |= 1 << (d & 7);
        if (heap) {
          matched++;
          if (heap.admits(score)) heap.push(segment.ids[d]!, score);
          continue;
        }
        found.scores[total + matched] = score;
        found.docs[total + matched] = d;
        found.segments[total + matched] = seen;
        matched++;
      }
      if (matched) {
        segmentsSeen.push(segment);
        counts.set(key, matched);
        matchedBits.set(key, bits);
        total += matched;
      }
    }
    const contains = (id: string) => {
      for (const [key, bits] of matchedBits) {
        const d = positionOf(this.segments.get(key)!, id);
        if (d !== undefined) return (bits[d >> 3]! & (1 << (d & 7))) !== 0;
      }
      return false;
    };
    if (heap) return { total, hits: heap.sorted().map(({ id, score }) => ({ id, score })), counts, contains };
    const id = (i: number) => segmentsSeen[found.segments[i]!]!.ids[found.docs[i]!]!;
    // Matches of one segment (one namespace, most searches) break ties by their ids' places there, without comparing strings.
    const ranks = segmentsSeen.length === 1 ? idRanksOf(segmentsSeen[0]!) : undefined;
    const ties: TieOrder = ranks ? { id, rank: (i) => ranks[found.docs[i]!]! } : { id };
    const best = inRankOrder(selectBest(found.scores, total, options.top, ties), (i) => found.scores[i]!, ties);
    return { total, hits: best.map((i) => ({ id: id(i), score: found.scores[i]! })), counts, contains };
  }

  /** Makes now what a segment's first searches would make (its ids' places and order: about 0.1 s at 100,000 tools). */
  warm(key: string): void {
    const segment = this.segments.get(key);
    if (segment) idRanksOf(segment);
  }

  private account(segment: Segment, sign: 1 | -1): void {
    this.docCount += sign * segment.ids.length;
    this.totalLength += sign * segment.totalLength;
    for (const [term, t] of segment.terms) {
      const df = (this.df.get(term) ?? 0) + sign * (segment.starts[t + 1]! - segment.starts[t]!);
      if (df > 0) this.df.set(term, df);
      else this.df.delete(term);
    }
  }
}

/** Pages this deep or less are picked by a heap as matches come (see `score`). */
const HEAP_TOP = 16;

/** Room for every match of a query, grown to the index's size (a query runs to its end before another starts). */
let foundArrays = { scores: new Float64Array(0), docs: new Int32Array(0), segments: new Int32Array(0) };

function foundFor(docCount: number): typeof foundArrays {
  if (foundArrays.scores.length < docCount) {
    foundArrays = { scores: new Float64Array(docCount), docs: new Int32Array(docCount), segments: new Int32Array(docCount) };
  }
  return foundArrays;
}

/** A segment's working arrays for scoring, made once and left zeroed after each query (a query runs to its end before another starts). */
const scratch = new WeakMap<Segment, { scores: Float64Array; words: Uint16Array; touched: Uint32Array }>();

function scratchOf(segment: Segment): { scores: Float64Array; words: Uint16Array; touched: Uint32Array } {
  let arrays = scratch.get(segment);
  if (!arrays) {
    const n = segment.ids.length;
    arrays = { scores: new Float64Array(n), words: new Uint16Array(n), touched: new Uint32Array(n) };
    scratch.set(segment, arrays);
  }
  return arrays;
}

/** Each document's length normalization (k1 · (1 − b + b · length / average)), made once per segment, parameters and average length. */
const norms = new WeakMap<Segment, { k1: number; b: number; avgLength: number; values: Float64Array }>();

function normsOf(segment: Segment, { k1, b }: ScoreParams, avgLength: number): Float64Array {
  const kept = norms.get(segment);
  if (kept && kept.k1 === k1 && kept.b === b && kept.avgLength === avgLength) return kept.values;
  const values = Float64Array.from(segment.lengths, (length) => k1 * (1 - b + (b * length) / avgLength));
  norms.set(segment, { k1, b, avgLength, values });
  return values;
}

/** A document's place in its segment, by id (the map made at the first lookup). */
const positions = new WeakMap<Segment, Map<string, number>>();

function positionsOf(segment: Segment): Map<string, number> {
  let map = positions.get(segment);
  if (!map) positions.set(segment, (map = new Map(segment.ids.map((d, i) => [d, i]))));
  return map;
}

function positionOf(segment: Segment, id: string): number | undefined {
  return positionsOf(segment).get(id);
}

/** Each document's place in its segment's id order (made at the first search that needs it, or by `warm`). */
const idRanks = new WeakMap<Segment, Int32Array>();

function idRanksOf(segment: Segment): Int32Array {
  let ranks = idRanks.get(segment);
  if (!ranks) {
    // The ids sorted natively (by UTF-16 code units, as `<` compares them), then each found by its place: no comparator called.
    const places = positionsOf(segment);
    ranks = new Int32Array(segment.ids.length);
    const sorted = segment.ids.slice().sort();
    for (let rank = 0; rank < sorted.length; rank++) ranks[places.get(sorted[rank]!)!] = rank;
    idRanks.set(segment, ranks);
  }
  return ranks;
}
