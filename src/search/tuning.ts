/**
 * Every constant that decides a ranking, in one object, so `metatools eval`
 * measures exactly what ships and the index cache (index-cache.ts) keys its
 * files by the whole of it: a constant added here is covered without
 * anyone remembering to list it. Values were chosen on the public retrieval
 * sets (StableToolBench, MetaTool, ToolRet) and a synthetic catalog; see
 * docs/retrieval.md for the measurements and why each value is what it is.
 * Fusion's k, the semantic weight and bm25Confidence are configuration
 * (`metatools.search.fusion`), not here.
 */
import type { ScoreParams } from "./inverted.js";
import type { SearchField } from "./documents.js";

export const TUNING = {
  /**
   * k1: term-frequency saturation. Field weights add up into one frequency,
   * so a word in a tool's name and description already counts several
   * times over; a high k1 (6, against the textbook 1.2) lets that evidence
   * register instead of saturating at once. b: length normalization.
   * delta: the floor each matching term adds (BM25+), so a long
   * description that mentions a query word once still beats one that does
   * not. coordination: the score is multiplied by (query words
   * matched)^this, joined pairs not counted, so a tool that matches more of
   * a request's words leads without one matched phrase counting three
   * times. The public sets are flat around these values (docs/retrieval.md).
   */
  score: { k1: 6, b: 0.75, delta: 0.5, coordination: 0.25 } satisfies ScoreParams,

  /**
   * The most times a word counts in one field of a tool: past it, repeats add
   * nothing (they still lengthen the tool, which BM25 discounts). Honest text
   * rarely says a word more than twice in a field; a description stuffed
   * with "directory tree list" fifty times outranked the real directory_tree
   * with no cap, k1's saturation being gentle at 6. BM25's nDCG@10 at 2:
   * StableToolBench +0.2, apigen +0.6, toolink and MetaTool unchanged; at 1,
   * MetaTool −0.8. See docs/retrieval.md.
   */
  fieldRepeatCap: 2,

  /**
   * The most times a word counts in the text the semantic leg embeds (a
   * tool's name, description and the rest, as one text): its vector sums its
   * words', so fifty repeats would point it at the stuffed words. Higher than
   * fieldRepeatCap: honest texts say their subject in the name and again in
   * the description, and at 2 the semantic leg lost 1 to 3.5 points of
   * nDCG@10 on four public sets; at 3 it is within half a point of no cap on
   * them (one point on the 47 requests of the MCP reference set).
   */
  embedRepeatCap: 3,

  /**
   * Field weights: how much one occurrence of a word in each field counts.
   * A tool's own name and curated words (title, aliases, tags) say what it
   * is; the description says it at length, with noise; the summary is
   * usually the description's first sentence, so it only tops that up;
   * parameter names say what a tool takes, weaker evidence of intent.
   */
  fieldBoosts: {
    name: 3,
    title: 2,
    aliases: 2,
    hints: 2,
    tags: 1.5,
    group: 1.5,
    namespace: 1,
    summary: 0.5,
    description: 1,
    params: 0.5,
    paramDocs: 0.3,
  } satisfies Record<SearchField, number>,

  /**
   * Generic action verbs (as stems) and the weight they carry in a query.
   * They tell apart a tool's siblings (get_issue vs delete_issue) but say
   * little about what a request is about, so the object of the request
   * leads: "find a hotel" is about hotels, not about tools named find_*.
   */
  actionVerbs: {
    weight: 0.5,
    stems: new Set([
      "find",
      "get",
      "search",
      "show",
      "list",
      "fetch",
      "retriev",
      "look",
      "check",
      "see",
      "discov",
      "explor",
      "obtain",
      "access",
      "view",
    ]) as ReadonlySet<string>,
  },

  /**
   * How much a query word said n times counts: 1 + weight × ln(n). Long
   * requests repeat their subject, which is worth something, but not n times
   * over.
   */
  queryRepeat: { weight: 0.5 },

  /** The relaxed pass: weights of terms a query word prefixes or nearly spells, and how many each word may bring in. */
  relaxed: {
    prefix: 0.6,
    fuzzy: 0.4,
    maxExpansions: 50,
    // Each word scans the whole vocabulary; a query that matched nothing strictly gains nothing from its 13th word.
    maxWords: 12,
  },

  /**
   * Score multiplier for deprecated tools (tagged so, or saying so in their
   * summary or description). Their text usually names the replacement and
   * repeats its words, so a mild demotion leaves them on top; at a quarter
   * they stay findable but rank below live tools that match comparably.
   */
  deprecatedPrior: 0.25,

  /**
   * Score multiplier for the tool a catalog marks `everyday`: the one plain
   * words mean among siblings that share them (read_text_file beside
   * read_media_file). A step, not a leap: a request that names what a
   * sibling alone does still finds the sibling first. Only catalogs set it,
   * so the public sets (run without catalogs) are ranked as before.
   */
  everydayPrior: 1.1,

  /**
   * A request in several parts (query-parts.ts): at most `max` parts are
   * ranked on their own (a request rarely asks for more), and a part's
   * ranking counts `weight` against the whole request's 1, shared between
   * the parts (÷ √parts).
   */
  parts: { max: 6, weight: 0.5 },

  /**
   * How many hits of each list fusion takes, at least (fusion.ts, fuseHead):
   * past them the leading list's order goes on. Also how deep the semantic
   * leg and a request's parts are ranked.
   */
  pool: 100,

  /**
   * A semantic hit counts as a match only with at least this share of the
   * best hit's cosine. Ranking is unchanged by it on the public sets; what it
   * changes is `total`, which otherwise counted the whole candidate pool.
   */
  denseFloor: 0.5,

  /**
   * The learned list (src/learn/) in fusion. Its weight against BM25's 1
   * grows with its best tool's agreement with the query (0–1),
   * `trust × a² / (a² + halfAgreement²)`, and, like the semantic leg's, steps
   * back as BM25's best match grows strong (`/ (1 + best / bm25Confidence)`).
   * So a catalog with no history ranks exactly as without learning, a query
   * that shares a common word with a past search is barely moved, a query
   * much like a well-worn path is led by it, and a query whose words name a
   * tool outright keeps it. Below `floor` there is no list at all; `depth`
   * of its tools are fused; a tool it put among the first `shown` hits is
   * reported as learned (and taught against if passed over). Measured
   * with `metatools eval --replay` on the four public sets (docs/retrieval.md,
   * "Search that learns"): trust 2 gave MetaTool +7 hit@5, 6 gives +13.5 with
   * every set still gaining, 12 costs apigen 2.8 points of hit@1.
   */
  learned: { trust: 6, halfAgreement: 0.2, floor: 0.05, depth: 30, shown: 3 },

  /**
   * When search is unsure (overview.ts): the leading words matched weakly
   * (BM25's best score under `strength`) and the signals' first tools
   * disagree, or no word matched exactly. The reply then maps the `units`
   * namespaces (or a namespace's groups) its first `pool` hits fall in,
   * each with its tools' names, within `chars` characters of names.
   */
  overview: { strength: 20, pool: 20, units: 3, chars: 700 },

  /**
   * Units (units.ts): how far the tools of a unit the query does not speak
   * to fall behind (a multiplier down to 1 / (1 + weight)); the weights of
   * what its server says of itself and of its tools' words in a unit's
   * document; and the length normalization of units (low: a namespace of
   * 100 tools is not less about each of its words than one of 3); the
   * `scored` best units lean, the rest count as not spoken to. Measured
   * (docs/retrieval.md, "Units"): StableToolBench hybrid nDCG@10 +1.9, the
   * MCP reference set +0.1; the three sets of one unit unchanged.
   */
  units: { weight: 1, about: 1, tools: 1, b: 0.3, scored: 256 },

  /**
   * Exact names (exact.ts): the longest name, in words, indexed and looked
   * for within an identifier; a name shared by more than `maxShared` tools
   * is generic and wins only as the whole query.
   */
  exact: { maxWords: 64, maxShared: 3 },
} as const;

export type Tuning = typeof TUNING;
