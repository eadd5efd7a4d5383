/**
 * Keeps the word indexes (BM25 and exact names) in step with the registry,
 * one namespace at a time. A namespace comes from the index cache when it
 * holds these very tools; else it is built, and kept there. At a start (a
 * large namespace's first index), the cached index of the same tool ids
 * is used at once, so 10,000 tools are searchable without hashing every
 * document first, and checked against the documents a moment later: a
 * stale one (a catalog edited since) is rebuilt then.
 *
 * A very large namespace (SLICED_MIN_TOOLS) is built in slices that let
 * the event loop turn (../util/turn.ts): 100,000 tools take seconds to
 * analyze, and searches made meanwhile are answered from the indexes as
 * they were (saying so: `building`), not held up. The new index replaces
 * the old one whole when done, unless the namespace changed again since.
 */
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { Bm25Ranker } from "./bm25.js";
import { toDocument, type SearchDocument } from "./documents.js";
import type { ExactNames } from "./exact.js";
import { EARLY_MIN_TOOLS, type IndexCache } from "./index-cache.js";
import type { PreparedNamespace } from "./segment-file.js";
import type { Logger } from "../util/log.js";
import { errorMessage } from "../util/errors.js";
import { Slices, Superseded } from "../util/turn.js";

/** Namespaces of this many tools or more are indexed in slices, in the background (about 0.6 s of analysis at 20,000). */
export const SLICED_MIN_TOOLS = 20_000;

export class LexicalIndexes {
  /** Namespaces indexed at least once in this process. */
  private readonly indexed = new Set<string>();
  private checks: Promise<void> = Promise.resolve();
  /** Each namespace's latest replacement: a build in slices installs what it built only if it is still the latest. */
  private readonly latest = new Map<string, number>();
  private replacements = 0;
  /** The builds in slices under way, by namespace. */
  private readonly builds = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly bm25: Bm25Ranker,
    private readonly exact: ExactNames,
    private readonly cache: IndexCache | undefined,
    private readonly logger: Logger | undefined = undefined,
    /** Namespaces of this many tools or more are built in slices. */
    private readonly slicedFrom = SLICED_MIN_TOOLS,
  ) {}

  /** `about`: what the namespace's server says of itself (src/registry/about.ts). */
  replace(namespace: string, records: readonly ToolRecord[], about = ""): void {
    const first = !this.indexed.has(namespace);
    this.indexed.add(namespace);
    const replacement = ++this.replacements;
    this.latest.set(namespace, replacement);
    const cache = this.cache;
    if (!cache) {
      if (records.length >= this.slicedFrom) return this.inSlices(namespace, records, about, undefined, replacement);
      this.bm25.replaceNamespace(namespace, records, undefined, about);
      this.exact.replaceNamespace(namespace, records);
      return;
    }
    const early =
      first && records.length >= EARLY_MIN_TOOLS
        ? cache.loadFor(
            namespace,
            records.map((r) => r.id),
          )
        : undefined;
    if (!early) return this.index(namespace, records, about, cache, replacement);
    this.install(namespace, early, records, about);
    const check = new Promise<void>((resolve) => setTimeout(resolve, cache.checkAfterMs).unref()).then(() => {
      // Replaced since (the backend connected and listed): that index was checked as it was made.
      if (this.registry.namespaceRecords(namespace) !== records || this.latest.get(namespace) !== replacement) return;
      const docs = records.map(toDocument);
      if (cache.keyOf(docs) !== early.key) this.index(namespace, records, about, cache, replacement, docs);
    });
    this.checks = Promise.all([this.checks, check]).then(() => undefined);
  }

  /** Settles when every index taken early has been checked (and rebuilt if it was stale). */
  whenChecked(): Promise<void> {
    return this.checks;
  }

  /** Settles when no namespace is being built in slices (those that start meanwhile included). */
  async whenBuilt(): Promise<void> {
    while (this.builds.size) await Promise.all(this.builds.values());
  }

  /** Settles when `namespace` is not being built in slices (at once when it is not). */
  builtNamespace(namespace: string): Promise<void> {
    return this.builds.get(namespace) ?? Promise.resolve();
  }

  /** The namespaces being built in slices: searches rank their tools as they were indexed before (or not at all, the first time). */
  get building(): string[] {
    return [...this.builds.keys()];
  }

  /** Writes what the index cache has pending (on close). */
  flush(): void {
    this.cache?.flush();
  }

  /** Stops the builds in slices under way (each at its next slice; what they built is not installed) and writes the cache. */
  close(): void {
    this.closed = true;
    this.flush();
  }

  private index(namespace: string, records: readonly ToolRecord[], about: string, cache: IndexCache, replacement: number, given?: SearchDocument[]): void {
    if (records.length >= this.slicedFrom) return this.inSlices(namespace, records, about, cache, replacement, given);
    const docs = given ?? records.map(toDocument);
    const key = cache.keyOf(docs);
    const kept = cache.load(namespace, key);
    if (kept) return this.install(namespace, kept, records, about);
    const built = this.bm25.replaceNamespace(namespace, records, docs, about);
    const exact = this.exact.replaceNamespace(namespace, records);
    if (built) cache.save(namespace, { ...cache.stamp(key), ...built, exact });
  }

  /** Starts a build in slices (one per namespace at a time: a newer one waits for the older to notice it is stale and stop). */
  private inSlices(
    namespace: string,
    records: readonly ToolRecord[],
    about: string,
    cache: IndexCache | undefined,
    replacement: number,
    docs?: SearchDocument[],
  ): void {
    const before = this.builds.get(namespace) ?? Promise.resolve();
    const build: Promise<void> = before
      .then(() => this.buildInSlices(namespace, records, about, cache, replacement, docs))
      .catch((error: unknown) => {
        if (!(error instanceof Superseded)) this.logger?.error(`indexing ${namespace} failed: ${errorMessage(error)}`);
      })
      .finally(() => {
        if (this.builds.get(namespace) === build) this.builds.delete(namespace);
      });
    this.builds.set(namespace, build);
  }

  private async buildInSlices(
    namespace: string,
    records: readonly ToolRecord[],
    about: string,
    cache: IndexCache | undefined,
    replacement: number,
    given: SearchDocument[] | undefined,
  ): Promise<void> {
    const current = () => !this.closed && this.latest.get(namespace) === replacement;
    // A namespace replaced again meanwhile: this build stops at its next pause.
    const slices = new Slices(current);
    // The caller (a registry change, a start) finishes first.
    await slices.pause();
    const docs: SearchDocument[] = given ?? [];
    for (let i = docs.length; i < records.length; i++) {
      docs.push(toDocument(records[i]!));
      if (slices.due()) await slices.pause();
    }
    const key = cache?.keyOf(docs);
    const kept = key === undefined ? undefined : cache!.load(namespace, key);
    if (kept) return this.install(namespace, kept, records, about);
    const built = await this.bm25.prepareInSlices(records, docs, slices);
    const exact = await this.exact.prepareInSlices(namespace, records, slices);
    if (!current()) return;
    this.bm25.installNamespace(namespace, built, records, about);
    this.exact.installNamespace(namespace, exact);
    if (cache && key !== undefined) cache.save(namespace, { ...cache.stamp(key), ...built, exact });
    // What the first searches would make, made now, in a slice of its own.
    await slices.pause();
    this.bm25.warm(namespace);
  }

  private install(namespace: string, prepared: PreparedNamespace, records: readonly ToolRecord[], about: string): void {
    this.bm25.installNamespace(namespace, prepared, records, about);
    this.exact.installNamespace(namespace, prepared.exact);
  }
}
