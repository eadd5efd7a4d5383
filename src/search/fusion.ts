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

/**
 * Fusion that pages: the lists are fused over their first `pool` hits
 * only, and past those the first list goes on in its own order. However
 * deep the page asked for, every tool keeps its place, so pages never
 * overlap and totals never move. Scores past the fused head keep falling.
 */
export function fuseHead(lists: readonly FusionList[], k: number, pool: number, top: number): Ranked[] {
  const fused = reciprocalRankFusion(
    lists.map(({ hits, weight }) => ({ hits: hits.slice(0, pool), weight })),
    k,
    Number.POSITIVE_INFINITY,
  );
  if (fused.length >= top) return fused.slice(0, top);
  const seen = new Set(fused.map((h) => h.id));
  const floor = fused.at(-1)?.score ?? 1;
  const tail = lists[0]?.hits.slice(pool) ?? [];
  for (let i = 0; i < tail.length && fused.length < top; i++) {
    const { id } = tail[i]!;
    if (!seen.has(id)) fused.push({ id, score: (floor * pool) / (pool + i + 1) });
  }
  return fused;
}
