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
 * in typed arrays and a query accumulates scores in one Float64Array per
 * segment, so ranking 100,000 tools stays in the low milliseconds.
 */
import { TUNING } from "./tuning.js";
import { TopK } from "./top-k.js";
import type { RankOptions, RankResult } from "./types.js";

/** One tool to index: its id and its analyzed terms, each field's with that field's weight. */
export interface IndexedDoc {
  id: string;
  fields: { terms: readonly string[]; weight: number }[];
  /** Multiplies the tool's final score; below 1 demotes it (a deprecated tool). Default 1. */
  prior?: number;
}

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

export interface Postings {
  docs: Uint32Array;
  tfs: Float32Array;
}

/** One namespace's documents: what segment-file.ts keeps on disk. */
export interface Segment {
  ids: string[];
  lengths: Float32Array;
  priors: Float32Array;
  totalLength: number;
  postings: Map<string, Postings>;
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

  /** Replaces a segment's documents; an empty list removes the segment. */
  replace(key: string, docs: readonly IndexedDoc[]): void {
    this.install(key, docs.length ? buildSegment(docs) : undefined);
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
    const top = new TopK(options.top);
    // Per segment, a bit per document matched: the match set, for `contains`, in an eighth of a byte per tool.
    const matchedBits = new Map<string, Uint8Array>();
    let total = 0;
    for (const [key, segment] of this.segments) {
      if (options.namespaces && !options.namespaces.has(key)) continue;
      const { scores, words, touched } = scratchOf(segment);
      let count = 0;
      for (const { term, idf, word } of weighted) {
        const postings = segment.postings.get(term);
        if (!postings) continue;
        const { docs, tfs } = postings;
        for (let i = 0; i < docs.length; i++) {
          const d = docs[i]!;
          const tf = tfs[i]!;
          const norm = params.k1 * (1 - params.b + (params.b * segment.lengths[d]!) / avgLength);
          if (scores[d] === 0) touched[count++] = d;
          scores[d]! += idf * ((tf * (params.k1 + 1)) / (tf + norm) + params.delta);
          if (word) words[d]!++;
        }
      }
      let matched = 0;
      const bits = new Uint8Array((segment.ids.length >> 3) + 1);
      const boost = boosts?.(key);
      for (let t = 0; t < count; t++) {
        const d = touched[t]!;
        const score = scores[d]! * Math.max(words[d]!, 1) ** params.coordination * segment.priors[d]! * (boost ? boost(d) : 1);
        scores[d] = 0;
        words[d] = 0;
        if (options.accept && !options.accept(segment.ids[d]!)) continue;
        matched++;
        bits[d >> 3]! |= 1 << (d & 7);
        if (top.admits(score)) top.push(segment.ids[d]!, score);
      }
      if (matched) {
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
    return { total, hits: top.sorted().map(({ id, score }) => ({ id, score })), counts, contains };
  }

  private account(segment: Segment, sign: 1 | -1): void {
    this.docCount += sign * segment.ids.length;
    this.totalLength += sign * segment.totalLength;
    for (const [term, postings] of segment.postings) {
      const df = (this.df.get(term) ?? 0) + sign * postings.docs.length;
      if (df > 0) this.df.set(term, df);
      else this.df.delete(term);
    }
  }
}

function buildSegment(docs: readonly IndexedDoc[]): Segment {
  const lists = new Map<string, { docs: number[]; tfs: number[] }>();
  const lengths = new Float32Array(docs.length);
  const priors = Float32Array.from(docs, (d) => d.prior ?? 1);
  let totalLength = 0;
  docs.forEach((doc, d) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const field of doc.fields) {
      const seen = new Map<string, number>();
      for (const term of field.terms) seen.set(term, (seen.get(term) ?? 0) + 1);
      for (const [term, n] of seen) tf.set(term, (tf.get(term) ?? 0) + Math.min(n, TUNING.fieldRepeatCap) * field.weight);
      // The whole text counts toward length: a stuffed field is long, and its matches are discounted for it.
      length += field.terms.length * field.weight;
    }
    lengths[d] = length;
    totalLength += length;
    for (const [term, value] of tf) {
      let list = lists.get(term);
      if (!list) lists.set(term, (list = { docs: [], tfs: [] }));
      list.docs.push(d);
      list.tfs.push(value);
    }
  });
  const postings = new Map<string, Postings>();
  for (const [term, list] of lists) postings.set(term, { docs: Uint32Array.from(list.docs), tfs: Float32Array.from(list.tfs) });
  return { ids: docs.map((d) => d.id), lengths, priors, totalLength, postings };
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

/** A document's place in its segment, by id (the map made at the first lookup). */
const positions = new WeakMap<Segment, Map<string, number>>();

function positionOf(segment: Segment, id: string): number | undefined {
  let map = positions.get(segment);
  if (!map) positions.set(segment, (map = new Map(segment.ids.map((d, i) => [d, i]))));
  return map.get(id);
}
