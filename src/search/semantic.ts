/**
 * The semantic leg of search: tool texts embedded into a vector index as
 * namespaces change, through the on-disk cache (only texts never seen are
 * embedded), and queries embedded on the fly. The embedder loads in the
 * background (a model can take a while) and indexing follows; until a
 * namespace is indexed, search says so and ranks it by BM25 alone. An
 * embedder that cannot load leaves search on BM25, with the reason.
 *
 * An embedder that runs elsewhere (an embedding service) may be down for a
 * while: one that could not load is tried again, and so is a namespace
 * whose tools could not be embedded (30 s, then twice as long each time, up
 * to 10 minutes); meanwhile search says which namespaces rank by BM25 alone.
 */
import { EmbeddingCache } from "../embed/cache.js";
import { serviceSaid, type Embedder } from "../embed/types.js";
import { theirsInline } from "../security/outside.js";
import type { ToolRecord } from "../model/tool.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { nextTurn } from "../util/turn.js";
import { embedNamespace } from "./embed-namespace.js";
import { queryParts } from "./query-parts.js";
import { Retries } from "./retries.js";
import type { RankOptions } from "./types.js";
import { VectorIndex, type VectorHit } from "./vectors.js";

/** Where a semantic index keeps its embeddings (src/embed/cache.ts): the folder (undefined: in memory only), the cap, and the config they are for. */
export interface EmbeddingCacheSpec {
  dir: string | undefined;
  maxBytes?: number;
  scope?: string;
}

export interface IndexProgress {
  namespace: string;
  done: number;
  total: number;
}

interface Loaded {
  embedder: Embedder;
  vectors: VectorIndex;
  cache: EmbeddingCache;
}

export class SemanticIndex {
  /** Settles when the embedder has loaded or failed to. */
  readonly ready: Promise<void>;
  /** Texts embedded by this process (cache misses), for tests and `metatools index`. */
  embedded = 0;
  onProgress: ((progress: IndexProgress) => void) | undefined;
  private loaded: Loaded | undefined;
  private failure: string | undefined;
  /** What an embedding service last said of a failure, as logged: each wording once. */
  private lastSaid: string | undefined;
  /** Loading began (the embedder must be closed once it has loaded), or never will: closed first. */
  private phase: "waiting" | "loading" | "closed" = "waiting";
  private readonly pending = new Map<string, Promise<void>>();
  private readonly generation = new Map<string, number>();
  /** Each namespace's latest tools, to embed again when a failed embedder or namespace is retried. */
  private readonly latest = new Map<string, readonly ToolRecord[]>();
  /** Namespaces whose embedding failed, and why; each waits for its retry. */
  private readonly failedNamespaces = new Map<string, string>();
  /** Retries of the embedder's load (key "") and of namespaces whose embedding failed. */
  private readonly retries = new Retries();

  constructor(
    load: () => Promise<Embedder>,
    /** Where embeddings are kept (undefined: in memory only), the cap on their bytes (default `DEFAULTS.search.embeddingCacheMaxBytes`), and whose they are (the config file). */
    cache: EmbeddingCacheSpec,
    private readonly logger: Logger,
    /** Loading starts once this settles (and the event loop has turned): a start answers its first requests first. */
    after: Promise<void> = Promise.resolve(),
    /**
     * For an embedder that runs elsewhere: a second index (the built-in
     * table) kept beside this one, which ranks a query this one cannot
     * (the service down or slow, or not loaded yet).
     */
    readonly fallback?: SemanticIndex,
  ) {
    // Each step of loading waits for a turn of the event loop, so requests that arrive meanwhile are served between them.
    this.ready = after
      .then(nextTurn)
      .then(() => {
        // Closed before it began (a server stopped as it started): nothing is loaded, nothing holds the process.
        if (this.phase === "closed") return undefined;
        this.phase = "loading";
        return load();
      })
      .then(
        async (embedder) => {
          if (!embedder) return;
          await nextTurn();
          this.install(embedder, cache);
          logger.info(`semantic search: ${embedder.id} (${embedder.dimensions} dimensions, ${this.loaded!.cache.size} cached embeddings)`);
        },
        (error: unknown) => {
          this.failure = errorMessage(error);
          logger.error(`semantic search is off: ${this.failure}`);
          this.heard(error);
          if (retryable(error)) this.retries.later("", () => void this.reload(load, cache));
        },
      );
  }

  private install(embedder: Embedder, cache: EmbeddingCacheSpec): void {
    this.loaded = {
      embedder,
      vectors: new VectorIndex(embedder.dimensions),
      cache: new EmbeddingCache(embedder.id, embedder.dimensions, cache.dir, cache.maxBytes, cache.scope),
    };
  }

  /** Loads the embedder again (it runs elsewhere, and was not there); once it is, every namespace is embedded. */
  private async reload(load: () => Promise<Embedder>, cache: EmbeddingCacheSpec): Promise<void> {
    if (this.phase === "closed" || this.loaded) return;
    try {
      const embedder = await load();
      if ((this.phase as string) === "closed") return void (await embedder.close?.());
      this.install(embedder, cache);
      this.failure = undefined;
      this.retries.done("");
      this.logger.info(`semantic search: ${embedder.id} answers now (${embedder.dimensions} dimensions)`);
      for (const [namespace, records] of this.latest) void this.replaceNamespace(namespace, records);
    } catch (error) {
      this.failure = errorMessage(error);
      this.heard(error);
      this.retries.later("", () => void this.reload(load, cache));
    }
  }

  /**
   * What a service said of its failure goes to the log (made printable, named as its words), each wording once:
   * never into a reply, where an agent would read it as metatools' own warning.
   */
  private heard(error: unknown): void {
    const said = serviceSaid(error);
    if (said === undefined || said === this.lastSaid) return;
    this.lastSaid = said;
    this.logger.info(`the embedding service's own words on that failure (shown to no agent): ${theirsInline(said)}`);
  }

  /** Why the semantic leg cannot be used: the embedder did not load, or an embedding run failed. */
  get error(): string | undefined {
    return this.failure;
  }

  get embedder(): Embedder | undefined {
    return this.loaded?.embedder;
  }

  /** Tools in the vector index. */
  get size(): number {
    return this.loaded?.vectors.size ?? 0;
  }

  get cacheFile(): string | undefined {
    return this.loaded?.cache.file;
  }

  /** Namespaces whose tools could not be embedded, with why: they rank by BM25 alone until a retry succeeds. */
  get failures(): [namespace: string, why: string][] {
    return [...this.failedNamespaces];
  }

  /** Namespaces still being embedded (all of them while the embedder loads). */
  get indexing(): string[] {
    return [...this.pending.keys()];
  }

  /**
   * Re-indexes one namespace; a newer call for the same namespace supersedes an older one still running.
   * The embedding starts once `after` settles (the namespace's words indexed: found by words first), and
   * the namespace counts as still embedding from now.
   */
  replaceNamespace(namespace: string, records: readonly ToolRecord[], after?: Promise<void>): Promise<void> {
    void this.fallback?.replaceNamespace(namespace, records);
    const generation = (this.generation.get(namespace) ?? 0) + 1;
    this.generation.set(namespace, generation);
    this.latest.set(namespace, records);
    const run = this.ready
      .then(() => after)
      .then(async () => {
        if (!this.loaded) return;
        await embedNamespace(this.loaded, namespace, records, {
          current: () => this.generation.get(namespace) === generation,
          progress: (done, total) => this.onProgress?.({ namespace, done, total }),
          embedded: (count) => void (this.embedded += count),
        });
        this.failedNamespaces.delete(namespace);
        this.retries.done(namespace);
      })
      .catch((error: unknown) => {
        const why = `embedding ${namespace} failed: ${errorMessage(error)}`;
        this.heard(error);
        if (!retryable(error)) {
          this.failure = why;
          this.logger.error(why);
          return;
        }
        // A service that did not answer: this namespace ranks by BM25 alone until it is tried again.
        if (!this.failedNamespaces.has(namespace)) this.logger.warn(`${why}; its tools rank by bm25 alone until it is tried again`);
        this.failedNamespaces.set(namespace, errorMessage(error));
        this.retries.later(namespace, () => {
          if (this.generation.get(namespace) === generation) void this.replaceNamespace(namespace, records);
        });
      })
      .finally(() => {
        if (this.pending.get(namespace) === run) this.pending.delete(namespace);
      });
    this.pending.set(namespace, run);
    return run;
  }

  /** Settles when every namespace in progress is indexed. */
  async whenIdle(): Promise<void> {
    await this.ready;
    while (this.pending.size) await Promise.all(this.pending.values());
  }

  /** Closes the embedder; one not loading yet never loads, and closing does not wait for the delay before its load. */
  async close(): Promise<void> {
    await this.fallback?.close();
    const loading = this.phase === "loading";
    this.phase = "closed";
    this.retries.close();
    if (!loading) return;
    await this.ready;
    await this.loaded?.embedder.close?.();
  }

  /** The nearest tools to a query; empty until the embedder has loaded. */
  async search(query: string, options: RankOptions): Promise<VectorHit[]> {
    if (!this.loaded) return [];
    const { embedder, vectors } = this.loaded;
    return vectors.search(await embedder.embed(queryParts(query), "query"), options);
  }

  /**
   * The nearest tools by this index, or, when it cannot rank the query and
   * has a fallback, by the fallback, saying why (`note`) and whose
   * embedder ranked them. Rejects when neither can.
   */
  async rank(query: string, options: RankOptions): Promise<{ hits: VectorHit[]; embedder: Embedder | undefined; note?: string }> {
    const fallback = this.fallback;
    if (!fallback) return { hits: await this.search(query, options), embedder: this.embedder };
    let why: string;
    if (!this.loaded) why = this.failure ?? "it is not loaded yet";
    else {
      try {
        return { hits: await this.search(query, options), embedder: this.embedder };
      } catch (error) {
        why = errorMessage(error);
        this.heard(error);
      }
    }
    const hits = await fallback.search(query, options);
    return {
      hits,
      embedder: fallback.embedder,
      note: `the embedding service could not embed the query (${why}); its meaning was ranked with the built-in embedder`,
    };
  }
}

/** A failure of an embedder that runs elsewhere (it says so): worth another try later. */
function retryable(error: unknown): boolean {
  return (error as { retryable?: unknown } | null)?.retryable === true;
}
