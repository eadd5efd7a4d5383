/**
 * `metatools index`: connects every backend, embeds every tool not yet in
 * the embedding cache, and reports what it did. On a terminal a progress
 * bar shows tools embedded per namespace; otherwise one line per namespace.
 * Later starts (serve, search) then find every vector cached.
 */
import { logLevel, parseFlags, UsageError } from "../flags.js";
import { openApp } from "../open.js";
import { ProgressView } from "../progress.js";
import { stderr, stdout } from "../output.js";

export async function indexTools(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {});
  if (positionals.length) throw new UsageError(`index takes no arguments, got "${positionals.join(" ")}"`);
  const progress = new ProgressView(process.stderr);
  const started = performance.now();
  const app = await openApp(values, logLevel(values["log-level"], "warn"), (app) => {
    if (!app.search.semantic) return;
    app.search.semantic.onProgress = (p) => progress.update(`embedding ${p.namespace}`, p.done, p.total, `indexed ${p.namespace}: ${p.total} tools`);
  });
  try {
    const semantic = app.search.semantic;
    if (!semantic)
      throw new UsageError(
        "metatools.search.embedder is false, so there is nothing to index: remove it (the built-in embedder is the default) or name one (see docs/retrieval.md)",
      );
    await semantic.whenIdle();
    progress.finish();
    const seconds = (performance.now() - started) / 1000;
    if (semantic.error) {
      stderr().write(`metatools index: ${semantic.error}\n`);
      return 1;
    }
    const summary = {
      embedder: semantic.embedder!.id,
      tools: semantic.size,
      namespaces: Object.fromEntries(
        app.registry
          .namespaces()
          .filter((n) => app.search.embeds(n.namespace))
          .map((n) => [n.namespace, n.count]),
      ),
      embedded: semantic.embedded,
      cached: semantic.size - semantic.embedded,
      seconds: Number(seconds.toFixed(2)),
      cacheFile: semantic.cacheFile ?? null,
    };
    if (values.json) stdout().json(summary);
    else {
      stdout().write(
        `indexed ${summary.tools} tools in ${Object.keys(summary.namespaces).length} namespace${Object.keys(summary.namespaces).length === 1 ? "" : "s"} with ${summary.embedder}: ` +
          `${summary.embedded} embedded, ${summary.cached} from the cache, in ${summary.seconds} s` +
          `${summary.embedded ? ` (${Math.round(summary.embedded / seconds)} tools/s)` : ""}\n` +
          (summary.cacheFile ? `embeddings kept in ${summary.cacheFile}\n` : "embeddings kept in memory only (metatools.search.embeddingCache is false)\n"),
      );
    }
    return 0;
  } finally {
    await app.close();
  }
}
