/**
 * `metatools index`: embeds every tool not yet in the embedding cache, and
 * reports what it did. The tools are those of the snapshot of each
 * backend's last tool list, as search sees them; only a backend never
 * listed is started (its tools are needed), or every one with --refresh.
 * On a terminal a progress bar shows tools embedded per namespace;
 * otherwise one line per namespace. Later starts (serve, search) then find
 * every vector cached.
 */
import { logLevel, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import type { Metatools } from "../../app.js";
import { openApp } from "../open.js";
import { ProgressView } from "../progress.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "index",
  group: "tune",
  summary: "embed every tool not yet in the embedding cache, with a progress bar",
  details:
    "Embeds the tools of the snapshot of each server's last tool list without starting it (a server never listed is started). Texts already in the cache are never embedded again.",
  flags: { refresh: SHARED.refresh, json: SHARED.json },
  run: indexTools,
});

export async function indexTools(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals.length) throw new UsageError(`index takes no arguments, got "${positionals.join(" ")}"`);
  const progress = new ProgressView(process.stderr);
  const started = performance.now();
  // A namespace is indexed again when its snapshot tools are replaced by a listing (--refresh): each is told once, unless its tools changed.
  const told = new Map<string, number>();
  const prepare = (app: Metatools) => {
    if (!app.search.semantic) return;
    app.search.semantic.onProgress = ({ namespace, done, total }) => {
      // Plumbing ranked by its words alone (metatools' own tools) is not embedded: nothing to tell.
      if (!app.search.embeds(namespace) || !total || (done === total && told.get(namespace) === total)) return;
      if (done === total) told.set(namespace, total);
      progress.update(`embedding ${namespace}`, done, total, `indexed ${namespace}: ${total} tools`);
    };
  };
  const app = await openApp(values, logLevel(values["log-level"], "warn"), prepare, values.refresh ? undefined : []);
  try {
    const semantic = app.search.semantic;
    if (!semantic)
      throw new UsageError(
        "metatools.search.embedder is false, so there is nothing to index: remove it (the built-in embedder is the default) or name one (see docs/retrieval.md)",
      );
    await app.search.whenIdle();
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
      // Served from the snapshot, their servers not started.
      fromSnapshot: app.backends
        .states()
        .filter((s) => s.fromSnapshot)
        .map((s) => s.namespace),
    };
    if (values.json) stdout().json(summary);
    else {
      stdout().write(
        `indexed ${summary.tools} tools in ${Object.keys(summary.namespaces).length} namespace${Object.keys(summary.namespaces).length === 1 ? "" : "s"} with ${summary.embedder}: ` +
          `${summary.embedded} embedded, ${summary.cached} from the cache, in ${summary.seconds} s` +
          `${summary.embedded ? ` (${Math.round(summary.embedded / seconds)} tools/s)` : ""}\n` +
          (summary.fromSnapshot.length
            ? `tools of ${summary.fromSnapshot.join(", ")} from the snapshot of their last tool list (servers not started; --refresh lists them again)\n`
            : "") +
          (summary.cacheFile ? `embeddings kept in ${summary.cacheFile}\n` : "embeddings kept in memory only (metatools.search.embeddingCache is false)\n"),
      );
    }
    return 0;
  } finally {
    await app.close();
  }
}
