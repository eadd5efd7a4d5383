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
  if (!isAscii(text)) return splitByPattern(text);
  const words: string[] = [];
  scanAscii(text, (raw) => words.push(raw));
  return words;
}

/**
 * Calls `visit` with each raw word of `text` in order; `fresh` is true for
 * the first word after a clause break (and the first of all): words on
 * either side of one are not neighbours.
 */
export function eachWord(text: string, visit: (raw: string, fresh: boolean) => void): void {
  if (isAscii(text)) return scanAscii(text, visit);
  for (const clause of text.split(CLAUSE_BREAK)) splitByPattern(clause).forEach((raw, i) => visit(raw, i === 0));
}

/** The rules, as patterns over any script: the reference `scanAscii` must agree with on ASCII text. */
export function splitByPattern(text: string): string[] {
  return (
    text
      .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
      // HTMLParser → HTML Parser, but GUIDs and URLs stay whole: the capital must start a word of 2+ letters.
      .replace(/(\p{Lu}+)(\p{Lu}\p{Ll}{2,})/gu, "$1 $2")
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
  );
}

/** Text of ASCII characters only: the common case, scanned by hand (scanAscii), several times faster than the patterns. */
const ASCII = /^\p{ASCII}*$/u;

/** Whether `text` is ASCII only: where a scan by hand may stand in for a pattern over any script. */
export function isAscii(text: string): boolean {
  return ASCII.test(text);
}

const enum Kind {
  Other,
  Lower,
  Upper,
  Digit,
}

const KIND = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  KIND[c] = c >= 97 && c <= 122 ? Kind.Lower : c >= 65 && c <= 90 ? Kind.Upper : c >= 48 && c <= 57 ? Kind.Digit : Kind.Other;
}

/** [A-Za-z0-9]: among ASCII characters, what \p{L} and \p{N} match. */
export function isAsciiAlnum(code: number): boolean {
  return code < 128 && KIND[code] !== Kind.Other;
}

/** Breaks a clause by themselves, and `.!?;,:` when whitespace or the end follows (as CLAUSE_BREAK). */
const BREAKS = new Set([...'()[]{}"\n\r\t|'].map((c) => c.charCodeAt(0)));
const PUNCTUATION = new Set([...".!?;,:"].map((c) => c.charCodeAt(0)));
/** \s among ASCII characters. */
const SPACES = new Set([..." \t\n\v\f\r"].map((c) => c.charCodeAt(0)));

/**
 * splitByPattern's rules on ASCII text, and eachWord's clause breaks: a
 * word ends before a capital that follows a small letter or a digit, and
 * before the last capital of a run of two or more followed by two small
 * letters (`HTMLParser`).
 */
function scanAscii(text: string, visit: (raw: string, fresh: boolean) => void): void {
  let fresh = true;
  let start = -1;
  const emit = (end: number) => {
    visit(text.slice(start, end), fresh);
    fresh = false;
  };
  const n = text.length;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 32;
    const kind = KIND[c]!;
    if (kind === Kind.Other) {
      if (start >= 0) emit(i);
      start = -1;
      if (BREAKS.has(c) || (PUNCTUATION.has(c) && (i + 1 >= n || SPACES.has(text.charCodeAt(i + 1))))) fresh = true;
      continue;
    }
    if (start < 0) {
      start = i;
      continue;
    }
    if (kind !== Kind.Upper) continue;
    const before = KIND[text.charCodeAt(i - 1)]!;
    if (before === Kind.Lower || before === Kind.Digit) {
      emit(i);
      start = i;
      continue;
    }
    // A capital after a capital followed by two small letters: the last of a run, which starts a word.
    if (KIND[text.charCodeAt(i + 1)] === Kind.Lower && KIND[text.charCodeAt(i + 2)] === Kind.Lower) {
      emit(i);
      start = i;
    }
  }
}

/** Lowercase, accents folded: "Café" → "cafe". */
export function fold(term: string): string {
  const lower = term.toLowerCase();
  // Most terms are ASCII and need no decomposition; skip the costly path for them.
  return /[^\p{ASCII}]/u.test(lower) ? lower.normalize("NFKD").replace(/\p{M}+/gu, "") : lower;
}

export interface Analyzer {
  /** A field's text to its index terms: word stems, then joined stems of neighbouring words. */
  analyze(text: string, visit?: (stem: string, raw: string) => void): string[];
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
  // Pairs by their first word, then their second: no key string is made per pair (both words were looked up, and hashed, already).
  const pairCache = new Map<string, Map<string, string>>();
  let pairCount = 0;
  const joined = (a: string, b: string): string => {
    let after = pairCache.get(a);
    const hit = after?.get(b);
    if (hit !== undefined) return hit;
    if (pairCount >= cacheSize) {
      pairCache.clear();
      pairCount = 0;
      after = undefined;
    }
    if (!after) pairCache.set(a, (after = new Map()));
    const both = fold(a) + fold(b);
    const pair = /\d/.test(both) ? both : stem(both);
    after.set(b, pair);
    pairCount++;
    return pair;
  };
  const analyze = (text: string, skip?: Set<string>, pairs?: Set<string>, visit?: (stem: string, raw: string) => void): string[] => {
    const terms: string[] = [];
    let previous: string | undefined;
    eachWord(text, (raw, fresh) => {
      if (fresh) previous = undefined;
      if (skip?.has(fold(raw))) return;
      const term = word(raw);
      if (term === null) return;
      visit?.(term, raw);
      terms.push(term);
      if (previous !== undefined) {
        const pair = joined(previous, raw);
        terms.push(pair);
        pairs?.add(pair);
      }
      previous = raw;
    });
    return terms;
  };
  return { word, analyze: (text, visit) => analyze(text, undefined, undefined, visit), analyzeQuery: (text, pairs) => analyze(text, QUERY_FILLER, pairs) };
}
