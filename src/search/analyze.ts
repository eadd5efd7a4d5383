/**
 * Text analysis shared by indexing and querying, so both sides agree on
 * what a term is: identifiers split into words (`read_file`, `getUser`,
 * `HTMLParser`), accents folded, stop words and request filler dropped,
 * and English words stemmed (Porter2), so "creating issues" meets
 * `create_issue`.
 */
import { stem } from "porter2";

/**
 * Function words, plus the filler agents and people wrap requests in
 * ("can you help me…", "I would like to…"). Verbs that name tool actions
 * (get, find, list, send, make) are kept: they carry the intent.
 */
const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being below between both but by
  can cannot could did do does doing don down during each either else ever few for from further had has have having he her here
  hers herself him himself his how i if in into is isn it its itself just let may me might more most must my myself no nor not of
  off on once only or other ought our ours ourselves out over own per please same shall she should so some such than that the
  their theirs them themselves then there these they this those though through thus to too under until up upon us very via was
  we were what whatever when where whether which while who whom whose why will with within without would yet you your yours
  yourself yourselves
  able anyone etc e g ie i.e eg hi hello hey kindly like need needs want wants wanted wish help helps
  im ive id ill youre youve dont doesnt cant wont isnt`
    .split(/\s+/)
    .filter(Boolean),
);

/** Splits text into raw words: camelCase and acronym boundaries, then anything that is not a letter or digit. */
export function tokenize(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** Lowercase, accents folded: "Café" → "cafe". */
export function fold(term: string): string {
  const lower = term.toLowerCase();
  // ASCII needs no decomposition; most terms are ASCII, so skip the costly path.
  return !/[^\p{ASCII}]/u.test(lower) ? lower : lower.normalize("NFKD").replace(/\p{M}+/gu, "");
}

export function isStopWord(term: string): boolean {
  return STOP_WORDS.has(term);
}

export interface Analyzer {
  /** One raw token to its index term, or null to drop it. Same for documents and queries. */
  processTerm(term: string, field?: string): string | null;
  /** A whole text to its index terms, in order (for callers outside MiniSearch). */
  terms(text: string): string[];
}

/** Stems are memoized: tool catalogs repeat a small vocabulary many times over. */
export function createAnalyzer(cacheSize = 50_000): Analyzer {
  const cache = new Map<string, string | null>();
  const processTerm = (raw: string): string | null => {
    const hit = cache.get(raw);
    if (hit !== undefined) return hit;
    const term = fold(raw);
    let out: string | null;
    if (term.length < 2 && !/\d/.test(term)) out = null;
    else if (STOP_WORDS.has(term)) out = null;
    else out = /\d/.test(term) ? term : stem(term);
    if (cache.size >= cacheSize) cache.clear();
    cache.set(raw, out);
    return out;
  };
  return {
    processTerm,
    terms: (text) => tokenize(text).map(processTerm).filter((t): t is string => t !== null),
  };
}
