/**
 * Weighted reciprocal-rank fusion (Cormack et al., 2009): each list gives a
 * tool weight / (k + rank), and the sums decide. Ranks, not scores, so BM25
 * and cosine need no common scale. The weights and k are measured on the
 * public retrieval sets (docs/retrieval.md).
 */
import type { Ranked } from "./types.js";

export interface FusionList {
  hits: readonly Ranked[];
  weight: number;
}

export function reciprocalRankFusion(lists: readonly FusionList[], k: number, top: number): Ranked[] {
  const scores = new Map<string, number>();
  for (const { hits, weight } of lists) hits.forEach((hit, rank) => scores.set(hit.id, (scores.get(hit.id) ?? 0) + weight / (k + rank + 1)));
  return [...scores.entries()]
    .map(([id, score]) => ({ id, score }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, top);
}
