/**
 * Scores search on a dataset: the tools are loaded through the catalog-only
 * backend (the same path users take), each query is ranked by the real
 * search engine, and the metrics are averaged per mode.
 */
import { createMetatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import type { SearchMode } from "../config/resolved.js";
import { MetatoolsError } from "../util/errors.js";
import { loadDataset, sampleQueries } from "./dataset.js";
import { createAccumulator, type Metrics } from "./metrics.js";

const NAMESPACE = "eval";
export const EVAL_MODES = ["bm25", "semantic", "hybrid"] as const;
export type EvalMode = (typeof EVAL_MODES)[number];

/** Modes this build can rank with; the others are reported as unavailable. */
export const AVAILABLE_MODES: readonly EvalMode[] = ["bm25"];

export async function evaluateDataset(dir: string, modes: readonly EvalMode[], sample?: number): Promise<Partial<Record<EvalMode, Metrics>>> {
  const dataset = loadDataset(dir);
  const config = parseConfig(
    { mcpServers: { [NAMESPACE]: { type: "catalog", tools: dataset.toolsFile } }, metatools: { builtinCatalog: false } },
    { file: dataset.toolsFile },
  );
  const app = createMetatools(config);
  await app.start();
  try {
    const state = app.backends.state(NAMESPACE);
    if (state?.status !== "ready") throw new MetatoolsError("dataset_invalid", state?.error ?? `cannot load ${dataset.toolsFile}`);
    const queries = sampleQueries(dataset.queries, sample);
    const out: Partial<Record<EvalMode, Metrics>> = {};
    for (const mode of modes) {
      if (!AVAILABLE_MODES.includes(mode)) {
        throw new MetatoolsError("mode_unavailable", `mode "${mode}" needs an embedding index, which this build does not have yet; use --mode bm25`);
      }
      const acc = createAccumulator();
      const prefix = `${NAMESPACE}:`;
      for (const q of queries) {
        const outcome = app.search.search({ query: q.query, limit: 10, offset: 0, namespaces: [], tags: [], mode: mode as SearchMode });
        acc.add(
          outcome.hits.map((h) => h.record.id.slice(prefix.length)),
          q.relevant,
        );
      }
      out[mode] = acc.result(app.registry.size);
    }
    return out;
  } finally {
    await app.close();
  }
}
