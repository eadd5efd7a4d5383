/**
 * The byte budget every response obeys. Responses are compact JSON; their
 * size is measured in UTF-8 bytes, the way clients count them.
 */

export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}

/**
 * The largest prefix of `items` whose built response fits `budget` bytes
 * (binary search; `build` must grow with the number of items). Returns the
 * response and how many items it holds; zero items if even that is too big.
 */
export function fitItems<T, R>(items: readonly T[], budget: number, build: (shown: readonly T[]) => R): { value: R; shown: number } {
  const full = build(items);
  if (jsonBytes(full) <= budget) return { value: full, shown: items.length };
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (jsonBytes(build(items.slice(0, mid))) <= budget) lo = mid;
    else hi = mid - 1;
  }
  return { value: build(items.slice(0, lo)), shown: lo };
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const buf = Buffer.from(text, "utf8").subarray(0, Math.max(0, maxBytes));
  // Drop a trailing partial character (its bytes would decode to U+FFFD).
  return buf.toString("utf8").replace(/\uFFFD$/, "");
}
