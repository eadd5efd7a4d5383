/**
 * "Did you mean": the known names closest to a mistyped one. Edit distance
 * catches typos (`read_fiel`); shared word parts catch paraphrases
 * (`file_read` for `read_file`).
 */

/**
 * Names are compared by their first 128 characters, the longest a valid
 * tool name has: the edit distance costs the product of the two lengths,
 * and an agent's text can be any length.
 */
const COMPARED_CHARS = 128;
/** A name longer than this is no typo of any name: only shared words and containment are looked for. */
const FUZZY_MAX_CHARS = 256;

/** Similarity in [0, 1]: the better of edit-distance similarity and word-part overlap. */
export function similarity(a: string, b: string): number {
  if (a.length === b.length && a.toLowerCase() === b.toLowerCase()) return 1;
  const x = a.slice(0, COMPARED_CHARS).toLowerCase();
  const y = b.slice(0, COMPARED_CHARS).toLowerCase();
  const longest = Math.max(a.length, b.length);
  let edit = 0;
  if (longest <= FUZZY_MAX_CHARS) {
    // Past the compared characters the distance is at least the difference in length, and two names that differ at least 1.
    const distance = Math.max(1, editDistance(x, y), Math.abs(a.length - b.length));
    edit = Math.max(0, 1 - distance / longest);
  }
  const wa = words(x);
  const wb = words(y);
  const shared = [...wa].filter((w) => wb.has(w)).length;
  const overlap = shared ? (2 * shared) / (wa.size + wb.size) : 0;
  const contains = x.length >= 3 && y.includes(x) ? 0.75 : 0;
  return Math.max(edit, overlap * 0.95, contains);
}

/** The `k` candidates most similar to `query`, best first, above `min` similarity. */
export function nearest(query: string, candidates: Iterable<string>, k = 3, min = 0.4): string[] {
  const scored: { value: string; score: number }[] = [];
  for (const value of candidates) {
    const score = similarity(query, value);
    if (score >= min) scored.push({ value, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.value.localeCompare(b.value))
    .slice(0, k)
    .map((s) => s.value);
}

function words(text: string): Set<string> {
  return new Set(
    text
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean),
  );
}

/** Damerau-Levenshtein (optimal string alignment). Stops early once the distance must reach `cap`, and then returns `cap`. */
export function editDistance(a: string, b: string, cap = Infinity): number {
  if (Math.abs(a.length - b.length) > cap) return cap;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, prev2[j - 2]! + 1);
      row.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > cap) return cap;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}
