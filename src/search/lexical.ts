/**
 * Keeps the word indexes (BM25 and exact names) in step with the registry,
 * one namespace at a time. A large namespace comes from the index cache
 * when it holds these very tools; else it is built, and kept there. At a
 * start (a namespace's first index), the cached index of the same tool ids
 * is used at once, so 10,000 tools are searchable without hashing every
 * document first, and checked against the documents a moment later: a
 * stale one (a catalog edited since) is rebuilt then.
 */
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { Bm25Ranker } from "./bm25.js";
import { toDocument } from "./documents.js";
import type { ExactNames } from "./exact.js";
import { CACHED_MIN_TOOLS, type IndexCache } from "./index-cache.js";
import type { PreparedNamespace } from "./segment-file.js";

export class LexicalIndexes {
  /** Namespaces indexed at least once in this process. */
  private readonly indexed = new Set<string>();
  private checks: Promise<void> = Promise.resolve();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly bm25: Bm25Ranker,
    private readonly exact: ExactNames,
    private readonly cache: IndexCache | undefined,
  ) {}

  /** `about`: what the namespace's server says of itself (src/registry/about.ts). */
  replace(namespace: string, records: readonly ToolRecord[], about = ""): void {
    const first = !this.indexed.has(namespace);
    this.indexed.add(namespace);
    const cache = records.length >= CACHED_MIN_TOOLS ? this.cache : undefined;
    if (!cache) {
      this.bm25.replaceNamespace(namespace, records, undefined, about);
      this.exact.replaceNamespace(namespace, records);
      return;
    }
    const early = first
      ? cache.loadFor(
          namespace,
          records.map((r) => r.id),
        )
      : undefined;
    if (!early) return this.index(namespace, records, about, cache);
    this.install(namespace, early, records, about);
    const check = new Promise<void>((resolve) => setTimeout(resolve, cache.checkAfterMs).unref()).then(() => {
      // Replaced since (the backend connected and listed): that index was checked as it was made.
      if (this.registry.namespaceRecords(namespace) !== records) return;
      const docs = records.map(toDocument);
      if (cache.keyOf(docs) !== early.key) this.index(namespace, records, about, cache, docs);
    });
    this.checks = Promise.all([this.checks, check]).then(() => undefined);
  }

  /** Settles when every index taken early has been checked (and rebuilt if it was stale). */
  whenChecked(): Promise<void> {
    return this.checks;
  }

  /** Writes what the index cache has pending (on close). */
  flush(): void {
    this.cache?.flush();
  }

  private index(namespace: string, records: readonly ToolRecord[], about: string, cache: IndexCache, docs = records.map(toDocument)): void {
    const key = cache.keyOf(docs);
    const kept = cache.load(namespace, key);
    if (kept) return this.install(namespace, kept, records, about);
    const built = this.bm25.replaceNamespace(namespace, records, docs, about);
    const exact = this.exact.replaceNamespace(namespace, records);
    if (built) cache.save(namespace, { ...cache.stamp(key), ...built, exact });
  }

  private install(namespace: string, prepared: PreparedNamespace, records: readonly ToolRecord[], about: string): void {
    this.bm25.installNamespace(namespace, prepared, records, about);
    this.exact.installNamespace(namespace, prepared.exact);
  }
}
