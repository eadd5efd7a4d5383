/**
 * The words: BM25 over the tools' fields (../bm25.ts), falling back to
 * prefix and typo-tolerant matching when nothing matches strictly. A
 * request in several parts is also ranked part by part and the rankings
 * fused (../query-parts.ts); the match set, its total and counts stay the
 * whole request's, which holds every part's words. It leads every mode it
 * runs in: the other lists defer to its strength.
 */
import type { Bm25Ranker } from "../bm25.js";
import { fuseParts, queryParts } from "../query-parts.js";
import { TUNING } from "../tuning.js";
import type { RankOptions, RankResult } from "../types.js";
import type { RankingSignal, SignalList, SignalRequest } from "./signal.js";

export class Bm25Signal implements RankingSignal {
  constructor(
    private readonly bm25: Bm25Ranker,
    /** RRF's k, for a request's parts as for the lists. */
    private readonly k: number,
  ) {}

  produce({ query, options, fused }: SignalRequest): SignalList {
    const { hits, relaxed, best, ...matches } = this.lexical(query, fused ? { ...options, top: Math.max(TUNING.pool, options.top) } : options);
    // A relaxed match (prefixes, near spellings) is no sure sign: meaning and history do not defer to it.
    return { hits, weight: 1, strength: relaxed ? 0 : best, matches, approximate: relaxed };
  }

  private lexical(query: string, options: RankOptions): RankResult & { relaxed: boolean; best: number } {
    const parts = queryParts(query).slice(1);
    // Parts are fused over a fixed pool, so the whole ranking is ranked that deep whatever the page.
    const strict = this.bm25.rank(query, parts.length ? { ...options, top: Math.max(TUNING.pool, options.top) } : options);
    if (strict.total && parts.length) {
      const ranked = parts.map((part) => this.bm25.rank(part, { ...options, top: TUNING.pool }).hits.filter((h) => strict.contains?.(h.id) !== false));
      return { ...strict, hits: fuseParts(strict.hits, ranked, this.k, TUNING.pool, options.top), relaxed: false, best: strict.hits[0]?.score ?? 0 };
    }
    if (strict.total) return { ...strict, relaxed: false, best: strict.hits[0]?.score ?? 0 };
    const loose = this.bm25.rankRelaxed(query, options);
    return { ...loose, relaxed: loose.total > 0, best: loose.hits[0]?.score ?? 0 };
  }
}
