/**
 * Search over the registry: BM25 over analyzed indexes (cached per config),
 * fused with semantic vectors when an embedder is configured, and what is
 * learned from use.
 */
import { join } from "node:path";
import { cacheHome } from "../config/env.js";
import type { ResolvedConfig } from "../config/resolved.js";
import { loadBuiltinEmbedder } from "../embed/builtin.js";
import { openEmbedder } from "../embed/open.js";
import { openLearning, type Learning } from "../learn/open.js";
import type { ToolRegistry } from "../registry/registry.js";
import { SearchEngine } from "../search/engine.js";
import { IndexCache } from "../search/index-cache.js";
import { SemanticIndex } from "../search/semantic.js";
import type { Logger } from "../util/log.js";
import type { Redact } from "../util/redact.js";
import { packageVersion } from "../util/version.js";

export interface SearchParts {
  search: SearchEngine;
  /** Undefined without an embedder. */
  semantic?: SemanticIndex;
  /** Undefined when `learn: false`. */
  learning?: Learning;
}

/** `backgroundDelayMs`: how long the embedder's load and the vectors' index wait (see AppOptions). */
export function openSearch(config: ResolvedConfig, registry: ToolRegistry, logger: Logger, redact: Redact, backgroundDelayMs?: number): SearchParts {
  const embedder = config.search.embedder;
  const background = backgroundDelayMs ? new Promise<void>((resolve) => setTimeout(resolve, backgroundDelayMs).unref()) : undefined;
  // Each config its own file: a start never reads what other configs or eval runs embedded.
  const cache = { dir: config.search.embeddingCache, maxBytes: config.search.embeddingCacheMaxBytes, ...(config.file ? { scope: config.file } : {}) };
  // An embedding service may be down or slow: the built-in table keeps an index beside it, which ranks a query the service cannot.
  const fallback = embedder && embedder.type === "openai" ? new SemanticIndex(async () => loadBuiltinEmbedder(), cache, logger, background) : undefined;
  const semantic = embedder && new SemanticIndex(() => openEmbedder(embedder), cache, logger, background, fallback);
  // Large namespaces' analyzed indexes are kept per config, so a restart over 10,000 tools does not analyze them again.
  const indexCache = config.file ? new IndexCache(join(cacheHome(), "index"), config.file, packageVersion()) : undefined;
  // What search learns from use: with the memory store in a learning file per config (kept across restarts), else in the store replicas share.
  const learning = config.learn ? openLearning(config, config.learn, logger, redact) : undefined;
  const search = new SearchEngine(registry, {
    semantic,
    fusion: config.search.fusion,
    indexCache,
    wordsOnly: new Set(["metatools"]),
    learned: learning?.learner,
    logger,
  });
  return { search, ...(semantic ? { semantic } : {}), ...(learning ? { learning } : {}) };
}
