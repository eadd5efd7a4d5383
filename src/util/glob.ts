/** Glob matching for ids and names: `*` is any run of characters (colons included), `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const ch of glob) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += ch.replace(/[\\^$.+()|[\]{}]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

export function isGlob(pattern: string): boolean {
  return pattern.includes("*") || pattern.includes("?");
}

/** A compiled list of globs; empty matches nothing. */
export function globMatcher(globs: readonly string[]): (value: string) => boolean {
  const exact = new Set(globs.filter((g) => !isGlob(g)));
  const patterns = globs.filter(isGlob).map(globToRegExp);
  return (value) => exact.has(value) || patterns.some((re) => re.test(value));
}
