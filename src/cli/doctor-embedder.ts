/** What `metatools doctor` says of the embedder: loaded or not, how much is embedded, and for a service, whether it answers now. */
import type { Metatools } from "../app.js";
import { EmbeddingCache } from "../embed/cache.js";
import { errorMessage } from "../util/errors.js";

export interface DoctorEmbedder {
  status: "off" | "ready" | "indexing" | "failed";
  /** The configured kind: builtin, static, use or transformers. */
  type?: string;
  id?: string;
  dimensions?: number;
  /** Tools embedded (in the vector index) of all tools. */
  embedded?: number;
  total?: number;
  cacheFile?: string;
  /** Embeddings kept in the cache file (of every tool this embedder has seen, not only today's). */
  cached?: number;
  error?: string;
  /** An embedding service: how long a query's embedding took just now, or why it failed. */
  latencyMs?: number;
  queryError?: string;
  /** Namespaces whose tools could not be embedded (ranked by BM25 alone until a retry succeeds), with why. */
  failures?: { namespace: string; why: string }[];
}

export function embedderStatus(app: Metatools): DoctorEmbedder {
  const semantic = app.search.semantic;
  const type = app.config.search.embedder?.type;
  if (!semantic) return { status: "off" };
  if (semantic.error && !semantic.embedder) return { status: "failed", type, error: semantic.error };
  const embedder = semantic.embedder;
  const cacheFile = semantic.cacheFile;
  return {
    status: semantic.error ? "failed" : semantic.indexing.length ? "indexing" : "ready",
    type,
    ...(embedder ? { id: embedder.id, dimensions: embedder.dimensions } : {}),
    embedded: semantic.size,
    // metatools' own tools are ranked by their words only: not counted as waiting to be embedded.
    total: app.registry
      .namespaces()
      .filter((n) => app.search.embeds(n.namespace))
      .reduce((sum, n) => sum + n.count, 0),
    ...(cacheFile ? { cacheFile, cached: embedder ? EmbeddingCache.countIn(cacheFile, embedder.dimensions) : 0 } : {}),
    ...(semantic.error ? { error: semantic.error } : {}),
  };
}

/** An embedding service is asked for one query's embedding, timed: whether it answers now, and how fast. */
export async function probeService(app: Metatools, status: DoctorEmbedder): Promise<DoctorEmbedder> {
  const semantic = app.search.semantic;
  const failures = semantic?.failures.map(([namespace, why]) => ({ namespace, why })) ?? [];
  const withFailures = failures.length ? { ...status, failures } : status;
  const embedder = semantic?.embedder;
  if (status.type !== "openai" || !embedder) return withFailures;
  const started = performance.now();
  try {
    await embedder.embed(["doctor"], "query");
    return { ...withFailures, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    return { ...withFailures, queryError: errorMessage(error) };
  }
}
