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
export const BM25_PARAMS = { k: 1.2, b: 0.75, d: 0.5 };

/**
 * Per-field boosts. A tool's own name and curated words (title, aliases,
 * tags) say what it is; the description says it at length, with noise;
 * parameter names say what it takes, which is weaker evidence of intent.
 */
export const FIELD_BOOSTS: Record<SearchField, number> = {
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

/** Strict-pass query options: every analyzed query word may match, none must. */
export const QUERY_OPTIONS: SearchOptions = {
  combineWith: "OR",
  prefix: false,
  fuzzy: false,
};
