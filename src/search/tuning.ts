/**
 * BM25 tuning, in one place so `metatools eval` measures exactly what ships.
 * Values were chosen on the public retrieval sets (StableToolBench, MetaTool)
 * and a synthetic catalog; see docs/retrieval.md for the measurements and
 * why each value is what it is.
 */
import type { SearchOptions } from "minisearch";
import type { SearchField } from "./documents.js";

/**
 * k: term-frequency saturation. b: length normalization. d: the floor each
 * matching term adds (BM25+), so a long description that mentions a query
 * word once still beats one that does not mention it.
 */
export const BM25_PARAMS: Readonly<{ k: number; b: number; d: number }> = { k: 1.2, b: 0.75, d: 0.5 };

/**
 * Per-field boosts. A tool's own name and curated words (title, aliases,
 * tags) say what it is; the description says it at length, with noise;
 * parameter names say what it takes, which is weaker evidence of intent.
 */
export const FIELD_BOOSTS: Readonly<Record<SearchField, number>> = {
  name: 3,
  title: 2,
  aliases: 2,
  tags: 1.5,
  group: 1.5,
  namespace: 1,
  summary: 1.5,
  description: 1,
  params: 0.5,
  paramDocs: 0.3,
};

/**
 * Generic action verbs (as stems) and the weight they carry in a query.
 * They tell apart a tool's siblings (get_issue vs delete_issue) but say
 * little about what a request is about, so the object of the request
 * leads: "find a hotel" is about hotels, not about tools named find_*.
 */
export const ACTION_VERBS: { readonly weight: number; readonly stems: ReadonlySet<string> } = {
  weight: 0.5,
  stems: new Set(["find", "get", "search", "show", "list", "fetch", "retriev", "look", "check", "see", "discov", "explor", "obtain", "access", "view"]),
};

/**
 * How much a query word said n times counts: 1 + repeat × ln(n). Long
 * requests repeat their subject, which is worth something, but not n times
 * over (MiniSearch alone would add each repeat in full).
 */
export const QUERY_REPEAT: { readonly weight: number } = { weight: 0.5 };

/**
 * Coordination: MiniSearch multiplies a hit's BM25 sum by the number of
 * query terms it matched. The ranker replaces that factor with
 * (query words matched)^exponent, joined pairs not counted: a tool that
 * matches more of the request's words leads, without one matched phrase
 * counting three times. 1 would be linear, 0 plain BM25; 0.5 was best on
 * hit@1 and nDCG of both public sets.
 */
export const COORDINATION: { readonly exponent: number } = { exponent: 0.5 };

/** Strict-pass query options: every analyzed query word may match, none must. */
export const QUERY_OPTIONS: SearchOptions = {
  combineWith: "OR",
  prefix: false,
  fuzzy: false,
};
