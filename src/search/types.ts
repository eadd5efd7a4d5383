/** A ranking strategy over the tool index. BM25 now; semantic and hybrid rankers plug in beside it. */
export interface Ranked {
  id: string;
  score: number;
  /** Index terms that matched, when the ranker knows them. */
  terms?: string[];
}

export interface Ranker {
  readonly mode: "bm25" | "semantic" | "hybrid";
  /** Every matching tool that `accept` lets through, best first. `total` is the length: never capped. */
  rank(query: string, accept: (id: string) => boolean): Ranked[];
}
