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
  const value = build(items.slice(0, lo));
  // Nothing fits, and cutting adds a note that makes the empty reply the larger: the whole one is the smaller miss.
  if (lo === 0 && jsonBytes(full) <= jsonBytes(value)) return { value: full, shown: items.length };
  return { value, shown: lo };
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  const bytes = Buffer.from(text, "utf8");
  // Back to the start of the character the cut falls in: a UTF-8 continuation byte is 10xxxxxx.
  let end = Math.max(0, maxBytes);
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
