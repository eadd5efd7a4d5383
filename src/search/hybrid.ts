/**
 * How the two legs of search become one ranking: which semantic hits count
 * as matches, and the confidence-weighted fusion that pages. Measured on
 * the public retrieval sets (docs/retrieval.md, "How hybrid fuses").
 */
import { fuseHead, type FusionList } from "./fusion.js";
import { DENSE_FLOOR } from "./tuning.js";
import type { RankResult, Ranked } from "./types.js";

export interface LegFusion {
  /** RRF's k. */
  k: number;
  /** The semantic list's weight when no word matches (BM25's is 1). */
  trust: number;
  /** The BM25 top score at which that weight is halved. */
  bm25Confidence: number;
  /** How deep each leg is fused; past it, BM25's order goes on. */
  pool: number;
  top: number;
}

/**
 * The semantic hits that are matches at all: some similarity (a query with
 * no known word is the zero vector, similar to nothing), and within
 * DENSE_FLOOR of the best one, so a vague query does not count the whole
 * pool among its matches. The cut leaves the ranking as it was on the
 * public sets.
 */
export function similar(hits: readonly Ranked[]): Ranked[] {
  const best = hits[0]?.score ?? 0;
  return hits.filter((h) => h.score > 0 && h.score >= best * DENSE_FLOOR);
}

/**
 * Reciprocal-rank fusion of the two legs, the semantic list weighted down
 * as BM25's best match (`lexical.best`) grows strong: an exact name or rare
 * word is trusted, a paraphrase is left to meaning. The result set is every
 * BM25 match plus the semantic hits, so `total` and the namespace counts are
 * exact over that union, and the same on every page.
 */
export function fuseLegs(lexical: RankResult & { best: number }, dense: readonly Ranked[], settings: LegFusion, learned?: FusionList): RankResult {
  const weight = settings.trust / (1 + lexical.best / settings.bm25Confidence);
  const lists: FusionList[] = [
    { hits: lexical.hits, weight: 1 },
    { hits: dense, weight },
  ];
  // What was learned steps back as the words match well, as meaning does.
  if (learned?.hits.length) lists.push({ hits: learned.hits, weight: learned.weight / (1 + lexical.best / settings.bm25Confidence) });
  return withUnion(lexical, fuseHead(lists, settings.k, settings.pool, settings.top), [...dense, ...(learned?.hits ?? [])]);
}

/** BM25 and the learned list alone (bm25 mode). */
export function fuseLearned(
  lexical: RankResult & { best: number },
  learned: FusionList,
  settings: Pick<LegFusion, "k" | "pool" | "top" | "bm25Confidence">,
): RankResult {
  const weight = learned.weight / (1 + lexical.best / settings.bm25Confidence);
  return withUnion(
    lexical,
    fuseHead(
      [
        { hits: lexical.hits, weight: 1 },
        { hits: learned.hits, weight },
      ],
      settings.k,
      settings.pool,
      settings.top,
    ),
    learned.hits,
  );
}

/** The fused hits over the union of BM25's matches and `others`: `total` and the namespace counts exact over it. */
function withUnion(lexical: RankResult, hits: Ranked[], others: readonly Ranked[]): RankResult {
  const counts = new Map(lexical.counts);
  let total = lexical.total;
  const added = new Set<string>();
  for (const { id } of others) {
    if (lexical.contains?.(id) || added.has(id)) continue;
    added.add(id);
    total++;
    const namespace = id.slice(0, id.indexOf(":"));
    counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
  }
  return { total, hits, counts, contains: (id) => lexical.contains?.(id) === true || added.has(id) };
}

/** A ranked list as a result set of its own. */
export function fromHits(hits: readonly Ranked[], top: number): RankResult {
  const counts = new Map<string, number>();
  for (const { id } of hits) {
    const namespace = id.slice(0, id.indexOf(":"));
    counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
  }
  const all = new Set(hits.map((h) => h.id));
  return { total: hits.length, hits: hits.slice(0, top), counts, contains: (id) => all.has(id) };
}
