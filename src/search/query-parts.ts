/**
 * Long task-style requests often ask for several things in one message
 * ("find the anime with ID 87654. Also, search movies about comedy"): each
 * ask has its own tool, and ranked as one bag of words the tool for the
 * louder ask crowds out the other. Both legs of search also rank the
 * request part by part: the semantic leg matches each tool against its best
 * part (semantic.ts), the lexical leg fuses the parts' rankings into the
 * whole request's (signals/bm25.ts). Measured on the four public sets in
 * docs/retrieval.md.
 */
import { fuseHead } from "./fusion.js";
import { TUNING } from "./tuning.js";
import type { Ranked } from "./types.js";

/**
 * The whole query, then its sentences and clauses when it has several
 * (split after . ? ! ; and at and / also / additionally / then).
 */
export function queryParts(query: string): string[] {
  const parts = query
    .split(/(?<=[.?!;])\s+|\s+(?:and|also|additionally|then)\s+/i)
    .map((p) => p.trim())
    .filter((p) => /\p{L}{3}/u.test(p));
  return parts.length > 1 ? [query, ...parts.slice(0, TUNING.parts.max)] : [query];
}

/** The whole query's ranking fused with its parts' over their first `pool` hits (RRF, k as for the legs), best first, `top` long. */
export function fuseParts(whole: readonly Ranked[], parts: readonly (readonly Ranked[])[], k: number, pool: number, top: number): Ranked[] {
  if (!parts.length) return whole.slice(0, top);
  const weight = TUNING.parts.weight / Math.sqrt(parts.length);
  return fuseHead([{ hits: whole, weight: 1 }, ...parts.map((hits) => ({ hits, weight }))], k, pool, top);
}
