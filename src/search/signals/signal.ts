/**
 * A ranking signal: one source of evidence about which tools answer a
 * query (its words, its meaning, what was learned from use, a name spelled
 * out). Each produces a ranked list for a query within the request's
 * filters; one function (fusion.ts, `fuseSignals`) makes the ranking out of
 * the lists. Which signals a search runs is its mode's choice (index.ts).
 */
import type { RankOptions, RankResult, Ranked } from "../types.js";

export interface SignalRequest {
  /** The query, trimmed; empty when browsing. */
  query: string;
  /** The request's filters (every hit must pass them) and the page's depth, `top` = offset + limit. */
  options: RankOptions;
  /** Who asks (src/security/principal.ts); unset: the local user. */
  principal?: string;
  /**
   * Whether other lists are fused with this one. Only the leading signal is
   * told false: standing alone, its list is the ranking, and it need only
   * rank the page; fused, it ranks at least `TUNING.pool` deep.
   */
  fused: boolean;
}

export interface SignalList {
  /** Best first (ties by id), only tools that pass the request's filters. Only the first `TUNING.pool` are fused. */
  hits: readonly Ranked[];
  /** The list's weight in reciprocal-rank fusion against the leading list's (BM25's 1). Unused when `pinned`. */
  weight: number;
  /**
   * The weight steps back as the leading list's own match grows strong: it
   * is divided by 1 + `strength` / bm25Confidence. Meaning and history defer
   * so to words: an exact name or a rare word is trusted, a paraphrase is
   * left to them.
   */
  defers?: boolean;
  /** Leading list only: how strongly its best tool matched (BM25's top score for the whole query), which `defers` reads. */
  strength?: number;
  /**
   * Leading list only: its whole match set, when larger than `hits` (BM25
   * counts every tool holding a query word, and ranks only a page of them).
   * Unset, and for every other list, the hits are the matches. `total` and
   * the namespace counts of a ranking are exact over the union of its
   * lists' matches.
   */
  matches?: Omit<RankResult, "hits">;
  /** Its tools lead the ranking whatever the weights (a tool the query names), in the order the other lists rank them. */
  pinned?: boolean;
  /** Its matches are approximate (prefix and typo-tolerant): the reply says so. */
  approximate?: boolean;
  /** What the reply should say of how this list was made (the meaning ranked by a fallback embedder, and why). */
  note?: string;
}

export interface RankingSignal {
  /**
   * This query's list, or undefined when the signal has nothing to say (then
   * the ranking is exactly what it is without it: no history, no list).
   * Rejects when the signal cannot rank at all (a model runtime that died):
   * the search is then ranked with bm25, the rejection's message saying why.
   */
  produce(request: SignalRequest): Promise<SignalList | undefined> | SignalList | undefined;
}
