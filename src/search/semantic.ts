/**
 * The semantic leg of search: tool texts embedded into a vector index as
 * namespaces change, through the on-disk cache (only texts never seen are
 * embedded), and queries embedded on the fly. Indexing runs in the
 * background; until a namespace is indexed, search says so and ranks it by
 * BM25 alone.
 */
import { EmbeddingCache, textHash } from "../embed/cache.js";
import type { Embedder } from "../embed/types.js";
import type { ToolRecord } from "../model/tool.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { embeddingText } from "./documents.js";
import { VectorIndex } from "./vectors.js";

/** Texts per embed call: large enough to batch, small enough to report progress. */
const BATCH = 64;

export interface IndexProgress {
  namespace: string;
  done: number;
  total: number;
}

export class SemanticIndex {
  readonly vectors: VectorIndex;
  readonly cache: EmbeddingCache;
  /** Texts embedded by this process (cache misses), for tests and `metatools index`. */
  embedded = 0;
  private readonly pending = new Map<string, Promise<void>>();
  private readonly generation = new Map<string, number>();
  private failure: string | undefined;
  onProgress: ((progress: IndexProgress) => void) | undefined;

  constructor(
    readonly embedder: Embedder,
    cacheDir: string | undefined,
    private readonly logger: Logger,
  ) {
    this.vectors = new VectorIndex(embedder.dimensions);
    this.cache = new EmbeddingCache(embedder.id, embedder.dimensions, cacheDir);
  }

  /** Why the index cannot be used, if an embedding run failed. */
  get error(): string | undefined {
    return this.failure;
  }

  /** Namespaces still being embedded. */
  get indexing(): string[] {
    return [...this.pending.keys()];
  }

  /** Re-indexes one namespace; a newer call for the same namespace supersedes an older one still running. */
  replaceNamespace(namespace: string, records: readonly ToolRecord[]): Promise<void> {
    const generation = (this.generation.get(namespace) ?? 0) + 1;
    this.generation.set(namespace, generation);
    const run = this.embedNamespace(namespace, records, generation)
      .catch((error: unknown) => {
        this.failure = `embedding ${namespace} failed: ${errorMessage(error)}`;
        this.logger.error(this.failure);
      })
      .finally(() => {
        if (this.pending.get(namespace) === run) this.pending.delete(namespace);
      });
    this.pending.set(namespace, run);
    return run;
  }

  /** Settles when every namespace in progress is indexed. */
  async whenIdle(): Promise<void> {
    while (this.pending.size) await Promise.all(this.pending.values());
  }

  async embedQuery(query: string): Promise<Float32Array> {
    const [vector] = await this.embedder.embed([query], "query");
    return vector!;
  }

  private async embedNamespace(namespace: string, records: readonly ToolRecord[], generation: number): Promise<void> {
    const texts = records.map(embeddingText);
    const hashes = texts.map(textHash);
    // One embedding per distinct text not yet cached: tools with the same text share it.
    const firstOf = new Map<string, number>();
    hashes.forEach((hash, i) => {
      if (!this.cache.get(hash) && !firstOf.has(hash)) firstOf.set(hash, i);
    });
    const missing = [...firstOf.values()];
    let done = records.length - missing.length;
    this.onProgress?.({ namespace, done, total: records.length });
    for (let start = 0; start < missing.length; start += BATCH) {
      if (this.generation.get(namespace) !== generation) return;
      const batch = missing.slice(start, start + BATCH);
      const vectors = await this.embedder.embed(
        batch.map((i) => texts[i]!),
        "document",
      );
      this.cache.add(batch.map((i, k) => ({ hash: hashes[i]!, vector: vectors[k]! })));
      this.embedded += batch.length;
      done += batch.length;
      this.onProgress?.({ namespace, done, total: records.length });
    }
    if (this.generation.get(namespace) !== generation) return;
    this.vectors.replaceNamespace(
      namespace,
      records.map((r) => r.id),
      hashes.map((h) => this.cache.get(h)!),
    );
  }
}
