/**
 * Text analysis shared by indexing and querying, so both sides agree on
 * what a term is: identifiers split into words (`read_file`, `getUser`,
 * `HTMLParser`), accents folded, stop words and request filler dropped,
 * English words stemmed (Porter2), so "creating issues" meets
 * `create_issue`. Neighbouring words also yield their joined stem
 * ("mind maps" → `mindmap`), which matches compounds written either way
 * (filename / file name) and rewards words that stand together in both
 * the query and the tool's text.
 */
import { stem } from "porter2";

/**
 * Function words, plus the filler agents and people wrap requests in
 * ("can you help me…", "I would like to…"). Verbs that name tool actions
 * (get, find, list, send, make) are kept: they carry the intent.
 */
export const STOP_WORDS = new Set(
  `a about above after again against all also am an and any are aren as at be because been before being below between both but by
  can cannot could did do does doing don down during each either else ever few for from further had has have having he her here
  hers herself him himself his how i if in into is isn it its itself just let may me might more most must my myself no nor not of
  off on once only or other ought our ours ourselves out over own per please same shall she should so some such than that the
  their theirs them themselves then there these they this those though through thus to too under until up upon us very via was
  we were what whatever when where whether which while who whom whose why will with within without would yet you your yours
  yourself yourselves
  able anyone etc eg ie hi hello hey kindly like need needs want wants wanted wish help helps
  im ive id ill youre youve dont doesnt cant wont isnt`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Words that frame a request rather than say what it is for ("could you
 * provide me with information about…", "I'm looking for…"). Dropped from
 * queries only: a tool's own text may well be about recommendations.
 */
export const QUERY_FILLER = new Set(
  `assist assistance assisting provide providing provided information info details detailed looking interested know tell
  give recommend recommendations suggest suggestions specific specifically particular currently something anything thing
  things sure really actually including such comprehensive various relevant related potential certain kindly`
    .split(/\s+/)
    .filter(Boolean),
);

/** Sentence and clause breaks: neighbouring words across one are not paired. */
const CLAUSE_BREAK = /[.!?;,:](?:\s|$)|[()[\]{}"\n\r\t|]/u;

/** Splits text into raw words: camelCase and acronym boundaries, then anything that is not a letter or digit. */
export function splitWords(text: string): string[] {
  return (
    text
      .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
      // HTMLParser → HTML Parser, but GUIDs and URLs stay whole: the capital must start a word of 2+ letters.
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll}{2,})/gu, "$1 $2")
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
  );
}

/** Lowercase, accents folded: "Café" → "cafe". */
export function fold(term: string): string {
  const lower = term.toLowerCase();
  // Most terms are ASCII and need no decomposition; skip the costly path for them.
  return /[^\p{ASCII}]/u.test(lower) ? lower.normalize("NFKD").replace(/\p{M}+/gu, "") : lower;
}

export interface Analyzer {
  /** A field's text to its index terms: word stems, then joined stems of neighbouring words. */
  analyze(text: string): string[];
  /** A query to its terms: as `analyze`, with request filler dropped too. Joined pairs are also added to `pairs`. */
  analyzeQuery(text: string, pairs?: Set<string>): string[];
  /** One raw word (folded here) to its stem, or null for a stop word or a lone letter. */
  word(raw: string): string | null;
}

/** Stems are memoized: tool catalogs repeat a small vocabulary many times over. */
export function createAnalyzer(cacheSize = 100_000): Analyzer {
  const cache = new Map<string, string | null>();
  const remember = (key: string, value: string | null): string | null => {
    if (cache.size >= cacheSize) cache.clear();
    cache.set(key, value);
    return value;
  };
  const word = (raw: string): string | null => {
    const hit = cache.get(raw);
    if (hit !== undefined) return hit;
    const term = fold(raw);
    if ((term.length < 2 && !/\d/.test(term)) || STOP_WORDS.has(term)) return remember(raw, null);
    return remember(raw, /\d/.test(term) ? term : stem(term));
  };
  const joined = (a: string, b: string): string => {
    const key = `${a} ${b}`;
    const hit = cache.get(key);
    if (hit) return hit;
    const both = fold(a) + fold(b);
    return remember(key, /\d/.test(both) ? both : stem(both)) as string;
  };
  const analyze = (text: string, skip?: Set<string>, pairs?: Set<string>): string[] => {
    const terms: string[] = [];
    for (const clause of text.split(CLAUSE_BREAK)) {
      let previous: string | undefined;
      for (const raw of splitWords(clause)) {
        if (skip?.has(fold(raw))) continue;
        const term = word(raw);
        if (term === null) continue;
        terms.push(term);
        if (previous !== undefined) {
          const pair = joined(previous, raw);
          terms.push(pair);
          pairs?.add(pair);
        }
        previous = raw;
      }
    }
    return terms;
  };
  return { word, analyze: (text) => analyze(text), analyzeQuery: (text, pairs) => analyze(text, QUERY_FILLER, pairs) };
}
