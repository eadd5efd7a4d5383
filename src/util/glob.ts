/** Glob matching for ids and names: `*` is any run of characters (colons included), `?` one character. */
export function globToRegExp(glob: string): RegExp {
  let source = "";
  for (const ch of glob) {
    if (ch === "*") source += ".*";
    else if (ch === "?") source += ".";
    else source += escapeRegExp(ch);
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

/**
 * A file-path glob, as in ripgrep's `-g`: `*` and `?` stay inside one path
 * segment, `**` spans segments, `{a,b}` is either. A glob without a `/`
 * matches the file name at any depth; one with a `/` matches the whole
 * "/"-separated path.
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
  const re = new RegExp(`^${source}$`);
  return anchored ? (path) => re.test(path) : (path) => re.test(path.slice(path.lastIndexOf("/") + 1));
}

/** `text` as a regular expression that matches it literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
