/**
 * The in-memory store behind keyv: a Map bounded by total bytes, evicting
 * the least recently used entries first. keyv hands it serialized strings
 * (value plus expiry), so an entry's size is known exactly; keyv itself
 * drops expired entries when it reads them.
 */
export class LruMap {
  private readonly entries = new Map<string, string>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** Size held, keys included, in UTF-16 code units (what strings cost in memory, roughly; ASCII text counts its bytes). */
  get bytes(): number {
    return this.used;
  }

  get(key: string): string | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** False, storing nothing, when the entry alone is over the bound (keyv then reports the write as refused). */
  set(key: string, value: string): boolean {
    this.delete(key);
    const bytes = key.length + value.length;
    if (bytes > this.maxBytes) return false;
    this.entries.set(key, value);
    this.used += bytes;
    for (const [oldest, old] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= oldest.length + old.length;
    }
    return true;
  }

  delete(key: string): boolean {
    const value = this.entries.get(key);
    if (value === undefined) return false;
    this.entries.delete(key);
    this.used -= key.length + value.length;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries.entries();
  }
}
