/**
 * Meaning: the tools nearest the query's embedding (../semantic.ts), a
 * tool scoring its best cosine over the whole request and its parts. It
 * defers to the words: its weight (the embedder's trust, or the
 * configured one) steps back as BM25's best match grows strong.
 */
import { DEFAULTS } from "../../config/defaults.js";
import { errorMessage } from "../../util/errors.js";
import type { SemanticIndex } from "../semantic.js";
import { TUNING } from "../tuning.js";
import type { Ranked } from "../types.js";
import type { RankingSignal, SignalList, SignalRequest } from "./signal.js";

export class SemanticSignal implements RankingSignal {
  constructor(
    /** Undefined: no embedder (the mode is never semantic or hybrid then). */
    private readonly index: SemanticIndex | undefined,
    /** The configured weight (`metatools.search.fusion.semanticWeight`); undefined: the embedder's own. */
    private readonly weight: number | undefined,
    /** What a tool's similarity is multiplied by, as BM25 weighs its words (bm25.ts priorOf): a deprecated tool ranks below what replaces it. */
    private readonly prior: (id: string) => number = () => 1,
  ) {}

  async produce({ query, options }: SignalRequest): Promise<SignalList> {
    const ranked = this.index
      ? await this.index.rank(query, { ...options, top: TUNING.pool }).catch((error: unknown) => {
          throw new Error(`embedding the query failed (${errorMessage(error)})`, { cause: error });
        })
      : { hits: [], embedder: undefined };
    const weight = this.weight ?? ranked.embedder?.fusionWeight ?? DEFAULTS.search.fusion.semanticWeight;
    const hits = similar(ranked.hits).map((hit) => {
      const prior = this.prior(hit.id);
      return prior === 1 ? hit : { id: hit.id, score: hit.score * prior };
    });
    hits.sort((a, b) => b.score - a.score);
    return { hits, weight, defers: true, ...(ranked.note ? { note: ranked.note } : {}) };
  }
}

/**
 * The semantic hits that are matches at all: some similarity (a query with
 * no known word is the zero vector, similar to nothing), and within
 * `TUNING.denseFloor` of the best one, so a vague query does not count the
 * whole pool among its matches. The cut leaves the ranking as it was on the
 * public sets.
 */
export function similar(hits: readonly Ranked[]): Ranked[] {
  const best = hits[0]?.score ?? 0;
  return hits.filter((h) => h.score > 0 && h.score >= best * TUNING.denseFloor);
}
