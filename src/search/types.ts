/** What rankers return: BM25 (`bm25.ts`), vectors (`vectors.ts`), and the fusion of the signals' lists (`fusion.ts`). */
export interface Ranked {
  id: string;
  score: number;
}

export interface RankOptions {
  /** Only tools of these namespaces; undefined: every namespace. */
  namespaces?: ReadonlySet<string>;
  /** A further filter on ids (tags, access); false leaves a tool out of hits, total and counts. */
  accept?: (id: string) => boolean;
  /** How many of the best hits to return, ranked. */
  top: number;
}

export interface RankResult {
  /** Every match, not only the hits returned: never capped. */
  total: number;
  /** The `top` best, best first; ties broken by id so pages are stable. */
  hits: Ranked[];
  /** Matches per namespace over the full match set. */
  counts: Map<string, number>;
  /** Whether a tool is in the full match set (not only the hits). */
  contains?: (id: string) => boolean;
}

export interface Ranker {
  readonly mode: "bm25" | "semantic" | "hybrid";
  rank(query: string, options: RankOptions): RankResult;
}
