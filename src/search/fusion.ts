/**
 * Weighted reciprocal-rank fusion (Cormack et al., 2009): each list gives a
 * tool weight / (k + rank), and the sums decide. Ranks, not scores, so BM25
 * and cosine need no common scale. The weights and k are measured on the
 * public retrieval sets (docs/retrieval.md). `fuseSignals` makes a
 * search's one ranking out of its signals' lists.
 */
import { countByNamespace } from "./filters.js";
import { inRankOrder, selectBest } from "./select.js";
import type { SignalList } from "./signals/signal.js";
import type { RankResult, Ranked } from "./types.js";

export interface FusionList {
  hits: readonly Ranked[];
  weight: number;
}

export function reciprocalRankFusion(lists: readonly FusionList[], k: number, top: number): Ranked[] {
  const places = new Map<string, number>();
  const ids: string[] = [];
  // A typed array, as the other callers of select.ts pass: its loops stay specialized to them.
  const scores = new Float64Array(lists.reduce((n, list) => n + list.hits.length, 0));
  for (const { hits, weight } of lists) {
    for (let rank = 0; rank < hits.length; rank++) {
      const id = hits[rank]!.id;
      const gain = weight / (k + rank + 1);
      const at = places.get(id);
      if (at === undefined) {
        places.set(id, ids.length);
        scores[ids.length] = gain;
        ids.push(id);
      } else scores[at] = scores[at]! + gain;
    }
  }
  // The first `top` only (select.ts), in rank order: a page of 10 out of 200 fused tools sorts 10.
  const ties = { id: (i: number) => ids[i]! };
  const chosen = top < ids.length ? selectBest(scores, ids.length, top, ties) : [...ids.keys()];
  return inRankOrder(chosen, (i) => scores[i]!, ties).map((i) => ({ id: ids[i]!, score: scores[i]! }));
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
    top,
  );
  if (fused.length >= top) return fused;
  const seen = new Set(fused.map((h) => h.id));
  const floor = fused.at(-1)?.score ?? 1;
  const tail = lists[0]?.hits.slice(pool) ?? [];
  for (let i = 0; i < tail.length && fused.length < top; i++) {
    const { id } = tail[i]!;
    if (!seen.has(id)) fused.push({ id, score: (floor * pool) / (pool + i + 1) });
  }
  return fused;
}

/** Fusion as configured (`metatools.search.fusion`). */
export interface FusionSettings {
  /** RRF's k. */
  k: number;
  /** The semantic list's weight when no word matches; BM25's is 1. Undefined: the embedder's own (`Embedder.fusionWeight`). */
  semanticWeight?: number;
  /** The BM25 top score at which the semantic weight is halved: the better the words match, the less meaning has to. */
  bm25Confidence: number;
}

export interface SignalFusion {
  /** RRF's k. */
  k: number;
  /** The leading list's `strength` at which the weight of a list that `defers` is halved. */
  bm25Confidence: number;
  /** How many hits of each list are fused; past them the leading list's order goes on. */
  pool: number;
  /** How many hits the page needs (offset + limit). */
  top: number;
}

/**
 * The one ranking made of the signals' lists (signals/). The first list
 * not pinned leads: alone, it is the ranking as it is, its own scores
 * kept; with others, the lists are fused by weighted reciprocal rank over
 * their first `pool` hits (`fuseHead`), the weight of each list that
 * `defers` divided by 1 + the leader's strength / bm25Confidence, and past
 * the pool the leader's order goes on. The result set is the leader's
 * match set and every other list's hits, so `total` and the namespace
 * counts are exact over that union, and the same on every page. Pinned
 * lists' tools then go first, in the order the ranking gave them.
 */
export function fuseSignals(lists: readonly SignalList[], settings: SignalFusion): RankResult {
  const ranked = lists.filter((list) => !list.pinned);
  const [lead, ...others] = ranked;
  let result: RankResult = { total: 0, hits: [], counts: new Map() };
  if (lead && !others.length) result = { ...matchesOf(lead), hits: lead.hits.slice(0, settings.top) };
  else if (lead) {
    const damping = 1 + (lead.strength ?? 0) / settings.bm25Confidence;
    const weighted = ranked.map((list, i) => ({ hits: list.hits, weight: i && list.defers ? list.weight / damping : list.weight }));
    result = union(matchesOf(lead), fuseHead(weighted, settings.k, settings.pool, settings.top), others);
  }
  const pinned = lists.filter((list) => list.pinned).flatMap((list) => list.hits.map((h) => h.id));
  return pinned.length ? pin(result, pinned, settings.top) : result;
}

/** A list's match set: the one it declares, or its hits. */
function matchesOf(list: SignalList): Omit<RankResult, "hits"> {
  if (list.matches) return list.matches;
  const all = new Set(list.hits.map((h) => h.id));
  return { total: list.hits.length, counts: countByNamespace(list.hits.map((h) => h.id)), contains: (id) => all.has(id) };
}

/** The fused hits over the union of the leader's match set and the other lists' hits: `total` and the namespace counts exact over it. */
function union(lead: Omit<RankResult, "hits">, hits: Ranked[], others: readonly SignalList[]): RankResult {
  let total = lead.total;
  const added = new Set<string>();
  for (const list of others) {
    for (const { id } of list.hits) {
      if (lead.contains?.(id) || added.has(id)) continue;
      added.add(id);
      total++;
    }
  }
  const counts = countByNamespace(added, new Map(lead.counts));
  return { total, hits, counts, contains: (id) => lead.contains?.(id) === true || added.has(id) };
}

/**
 * `result` with the pinned tools first, in the order it ranks them (those
 * it does not rank after, as listed), scored no lower than its best hit;
 * one that was not in the result set is added to its total and counts,
 * which stay exact.
 */
function pin(result: RankResult, ids: readonly string[], top: number): RankResult {
  const order = new Map(result.hits.map((h, i) => [h.id, i]));
  const named = [...new Set(ids)].sort((a, b) => (order.get(a) ?? order.size) - (order.get(b) ?? order.size));
  const scores = new Map(result.hits.map((h) => [h.id, h.score]));
  const best = result.hits[0]?.score ?? 0;
  const fresh = named.filter((id) => !scores.has(id) && !result.contains?.(id));
  const counts = countByNamespace(fresh, new Map(result.counts));
  const first = named.map((id) => ({ id, score: Math.max(best, scores.get(id) ?? 0) }));
  const chosen = new Set(named);
  const hits = [...first, ...result.hits.filter((h) => !chosen.has(h.id))].slice(0, top);
  return { total: result.total + fresh.length, hits, counts, contains: (id) => chosen.has(id) || (result.contains?.(id) ?? scores.has(id)) };
}
