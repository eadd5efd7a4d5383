/**
 * The BM25 ranker: a MiniSearch index over summary-level tool documents,
 * updated one namespace at a time as backends come, go and change.
 */
import MiniSearch from "minisearch";
import type { ToolRecord } from "../model/tool.js";
import { createAnalyzer, fold, splitWords } from "./analyze.js";
import { SEARCH_FIELDS, toDocument, type SearchDocument } from "./documents.js";
import { ACTION_VERBS, BM25_PARAMS, COORDINATION, FIELD_BOOSTS, QUERY_OPTIONS, QUERY_REPEAT } from "./tuning.js";
import type { Ranked, Ranker } from "./types.js";

export class Bm25Ranker implements Ranker {
  readonly mode = "bm25" as const;
  private readonly index: MiniSearch<SearchDocument>;
  private readonly idsByNamespace = new Map<string, string[]>();
  private readonly analyzer = createAnalyzer();

  constructor() {
    this.index = new MiniSearch<SearchDocument>({
      fields: [...SEARCH_FIELDS],
      storeFields: [],
      // Analysis happens whole in tokenize (it needs neighbouring words); terms arrive final.
      tokenize: (text) => this.analyzer.analyze(text),
      processTerm: (term) => term,
      searchOptions: { bm25: BM25_PARAMS },
      autoVacuum: { minDirtCount: 1000, minDirtFactor: 0.2, batchSize: 5000, batchWait: 10 },
    });
  }

  get size(): number {
    return this.index.documentCount;
  }

  replaceNamespace(namespace: string, records: readonly ToolRecord[]): void {
    const old = this.idsByNamespace.get(namespace);
    if (old?.length) this.index.discardAll(old);
    this.index.addAll(records.map(toDocument));
    if (records.length) this.idsByNamespace.set(namespace, records.map((r) => r.id));
    else this.idsByNamespace.delete(namespace);
  }

  rank(query: string, accept: (id: string) => boolean): Ranked[] {
    const counts = new Map<string, number>();
    const pairs = new Set<string>();
    for (const term of this.analyzer.analyzeQuery(query, pairs)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const weight = (term: string): number =>
      (1 + QUERY_REPEAT.weight * Math.log(counts.get(term) ?? 1)) * (counts.size > 1 && ACTION_VERBS.stems.has(term) ? ACTION_VERBS.weight : 1);
    const results = this.index.search([...counts.keys()].join(" "), {
      ...QUERY_OPTIONS,
      // Each distinct term once (already analyzed); repeats count through boostTerm.
      tokenize: (text) => (text ? text.split(" ") : []),
      boostTerm: weight,
      boost: FIELD_BOOSTS,
      bm25: BM25_PARAMS,
      filter: (result) => accept(result.id as string),
    });
    const { exponent } = COORDINATION;
    const ranked = results.map((r) => {
      const words = r.queryTerms.filter((t) => !pairs.has(t)).length || 1;
      return { id: r.id as string, score: (r.score / (r.queryTerms.length || 1)) * words ** exponent, terms: r.terms };
    });
    return ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  }

  /**
   * The fallback when strict matching finds nothing: raw words (stop words
   * kept), prefix and typo tolerant, so `a`, `gti` or `repo` still lead somewhere.
   */
  rankRelaxed(query: string, accept: (id: string) => boolean): Ranked[] {
    const results = this.index.search(query, {
      tokenize: splitWords,
      processTerm: fold,
      prefix: true,
      fuzzy: (term) => (term.length > 3 ? 0.25 : 0),
      combineWith: "OR",
      boost: FIELD_BOOSTS,
      bm25: BM25_PARAMS,
      filter: (result) => accept(result.id as string),
    });
    return results.map((r) => ({ id: r.id as string, score: r.score, terms: r.terms }));
  }

  /** Terms the index knows that are close to `term` (typo-tolerant), for empty-result hints. */
  nearTerms(term: string, limit = 3): string[] {
    const results = this.index.search(term, { fuzzy: 0.34, prefix: true, combineWith: "OR", boost: FIELD_BOOSTS });
    const counts = new Map<string, number>();
    for (const r of results.slice(0, 50)) for (const t of r.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([t]) => t);
  }
}
