/**
 * Globs over ids, names and paths. None of them runs on a backtracking
 * engine: `*a*a*a*a*b` against a long name would take polynomial time there
 * (V8 backtracks over every way to split the name), and globs come from
 * agents. Id globs use a two-pointer wildcard match; path globs compile to
 * RE2 (util/regex.ts).
 */
import { compileRegex, RegexError, type SafeRegex } from "./regex.js";

/**
 * A glob over ids and names: `*` is any run of characters (colons
 * included), `?` one character. Worst case O(glob × value), no recursion:
 * on a mismatch the match restarts just after the last `*`, one character
 * further along the value.
 */
export function globTester(glob: string): (value: string) => boolean {
  const pattern = [...glob];
  return (value) => {
    const text = [...value];
    let p = 0;
    let t = 0;
    let star = -1;
    let resume = 0;
    while (t < text.length) {
      if (p < pattern.length && (pattern[p] === "?" || (pattern[p] !== "*" && pattern[p] === text[t]))) {
        p++;
        t++;
      } else if (p < pattern.length && pattern[p] === "*") {
        star = p++;
        resume = t;
      } else if (star >= 0) {
        p = star + 1;
        t = ++resume;
      } else return false;
    }
    while (p < pattern.length && pattern[p] === "*") p++;
    return p === pattern.length;
  };
}

export function isGlob(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("?");
}

/** A compiled list of globs; empty matches nothing. */
export function globMatcher(globs: readonly string[]): (value: string) => boolean {
  const exact = new Set(globs.filter((g) => !isGlob(g)));
  const patterns = globs.filter(isGlob).map(globTester);
  return (value) => exact.has(value) || patterns.some((test) => test(value));
}

/**
 * A file-path glob, as in ripgrep's `-g`: `*` and `?` stay inside one path
 * segment, `**` spans segments, `{a,b}` is either. A glob without a `/`
 * matches the file name at any depth; one with a `/` matches the whole
 * "/"-separated path. Throws RegexError for a glob too large to match
 * in bounded time.
 */
export function pathGlob(glob: string): (path: string) => boolean {
  const anchored = glob.includes("/");
  const body = glob.replace(/^\.\//, "").replace(/^\//, "");
  let source = "";
  let braces = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === "*" && body[i + 1] === "*") {
      const slash = body[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else if (ch === "{") {
      braces++;
      source += "(?:";
    } else if (ch === "}" && braces > 0) {
      braces--;
      source += ")";
    } else if (ch === "," && braces > 0) source += "|";
    else source += escapeRegExp(ch);
  }
  if (braces > 0) throw new RegexError(`a "{" is never closed (braces list alternatives, as in *.{ts,js})`);
  let re: SafeRegex;
  try {
    re = compileRegex(`^(?:${source})$`);
  } catch (error) {
    // The limits speak of the regular expression the glob becomes; the agent wrote a glob.
    if (error instanceof RegexError) throw new RegexError(`the glob (${glob.length} characters) is too large or complex to match safely; use a shorter one`);
    throw error;
  }
  return anchored ? (path) => re.test(path) : (path) => re.test(path.slice(path.lastIndexOf("/") + 1));
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
