/**
 * Scores search on a dataset: the tools are loaded through the catalog-only
 * backend (the same path users take), each query is ranked by the real
 * search engine, and the metrics are averaged per mode.
 */
import { BUILTIN_CATALOG_DIR, createMetatools, type Metatools } from "../app.js";
import type { EmbedderConfig, ResolvedConfig, SearchMode } from "../config/resolved.js";
import type { FusionSettings } from "../search/engine.js";
import { MetatoolsError } from "../util/errors.js";
import { datasetConfig, liveConfig, loadDataset, sampleQueries, type Dataset, type EvalQuery } from "./dataset.js";
import { createAccumulator, type Metrics } from "./metrics.js";
import { checkNames, type NamesResult } from "./names.js";
import type { EvalMode } from "./modes.js";

export const NAMESPACE = "eval";
export { EVAL_MODES, type EvalMode } from "./modes.js";

export interface EvalOptions {
  /** Evaluate on this many queries spread over the file; default all. */
  sample?: number;
  /** The semantic leg: default the built-in embedder, as a fresh install has; false for none (only bm25 can then be evaluated). */
  embedder?: EmbedderConfig | false;
  /** Folder of the embedding cache; default in memory only. */
  embeddingCache?: string;
  /** Fusion settings to measure; default the configured ones. */
  fusion?: FusionSettings;
  /** Told as tools are embedded ("embedding") and queries ranked (the mode's name). */
  onProgress?: (stage: string, done: number, total: number) => void;
  /** Keep this many failed queries per mode (the relevant tool not ranked first), worst first. */
  misses?: number;
  /** A live set (metatools.json): apply the curated catalogs (shipped and configured). Default true. */
  catalog?: boolean;
  /** Index what servers say about themselves (search.serverWords). Default true. */
  serverWords?: boolean;
}

/** A query whose relevant tool was not ranked first: what was expected, where it came (undefined: not in the top 10), and what came first. */
export interface Miss {
  id: string;
  query: string;
  expected: string[];
  rank: number | undefined;
  top: string[];
}

/**
 * The map search adds when it is unsure (src/search/overview.ts), measured: the share of queries it
 * was shown for; the share whose relevant tool was in the top 10, and in the top 10 or the map; the
 * mean size of a map shown (characters of its JSON ÷ 4, about tokens).
 */
export interface MapMeasure {
  shown: number;
  inTop10: number;
  inTop10OrMap: number;
  tokensWhenShown: number;
}

/** A mode's metrics, per split when the set has them, its worst misses when asked for, and the map's measure. */
export type ModeResult = Metrics & { splits?: Record<string, Metrics>; misses?: Miss[]; map?: MapMeasure };

export async function evaluateDataset(dir: string, modes: readonly EvalMode[], options: EvalOptions = {}): Promise<Partial<Record<EvalMode, ModeResult>>> {
  return withDataset(dir, modes, options, async (app, queries) => {
    const out: Partial<Record<EvalMode, ModeResult>> = {};
    for (const mode of modes) out[mode] = await rankAll(app, queries, mode, options.onProgress, options.misses, scopeOf(app));
    return out;
  });
}

/**
 * The app over a dataset's tools, embedded and checked ready for `modes`,
 * handed to `work` with the queries to evaluate; closed after.
 */
export async function withDataset<T>(
  dir: string,
  modes: readonly EvalMode[],
  options: EvalOptions,
  work: (app: Metatools, queries: EvalQuery[]) => Promise<T>,
): Promise<T> {
  const dataset = loadDataset(dir);
  const config = evalConfig(dataset, options);
  if (options.fusion) config.search.fusion = options.fusion;
  const app = createMetatools(config);
  const progress = options.onProgress;
  if (progress && app.search.semantic) app.search.semantic.onProgress = (p) => progress("embedding", p.done, p.total);
  await app.start();
  try {
    // Every server of the set up, or no measure: a missing server's tools would count as misses.
    for (const state of app.backends.states()) {
      if (state.status === "ready") continue;
      const what = dataset.tools.live
        ? `${state.namespace} (from ${dataset.tools.file}) did not come up (${state.status})`
        : `cannot load ${dataset.tools.file}`;
      throw new MetatoolsError("dataset_invalid", `${what}${state.error ? `: ${state.error}` : ""}`);
    }
    await app.search.whenIdle();
    for (const mode of modes) {
      if (mode !== "bm25" && !app.search.semantic) {
        throw new MetatoolsError(
          "mode_unavailable",
          `mode "${mode}" needs an embedder, and metatools.search.embedder is false: pass --embedder builtin or use, or --vectors FILE (made by \`metatools vectors import\`)`,
        );
      }
      if (mode !== "bm25" && app.search.semantic?.error)
        throw new MetatoolsError("mode_unavailable", `mode "${mode}" is unavailable: ${app.search.semantic.error}`);
    }
    return await work(app, sampleQueries(dataset.queries, options.sample));
  } finally {
    await app.close();
  }
}

/** Where a set's tools are: one namespace of a tool list (ids without it), or every namespace of a live set (served ids). */
export interface EvalScope {
  namespaces: string[];
  prefix: string;
  tools: number;
}

/** The scope of the app `withDataset` made: a live set has no `eval` namespace. */
export function scopeOf(app: Metatools): EvalScope {
  const listed = app.registry.namespaceRecords(NAMESPACE).length;
  return listed ? { namespaces: [NAMESPACE], prefix: `${NAMESPACE}:`, tools: listed } : { namespaces: [], prefix: "", tools: app.registry.size };
}

/** Every query ranked by the real search engine in `mode`, the metrics averaged. */
export async function rankAll(
  app: Metatools,
  queries: readonly EvalQuery[],
  mode: EvalMode,
  progress?: EvalOptions["onProgress"],
  keepMisses = 0,
  scope: EvalScope = scopeOf(app),
): Promise<ModeResult> {
  const acc = createAccumulator();
  const splits = new Map<string, ReturnType<typeof createAccumulator>>();
  const misses: Miss[] = [];
  const maps = { shown: 0, inTop10: 0, inTop10OrMap: 0, chars: 0 };
  const { prefix } = scope;
  for (const [i, q] of queries.entries()) {
    if (i % 25 === 0) progress?.(mode, i, queries.length);
    const outcome = await app.search.search({ query: q.query, limit: 10, offset: 0, namespaces: scope.namespaces, tags: [], mode: mode as SearchMode });
    // A search that fell back (an embedding that failed) must not be scored under the mode asked for.
    if (outcome.fellBack || (outcome.mode !== mode && outcome.mode !== "browse"))
      throw new MetatoolsError("mode_unavailable", `query ${q.id} was ranked with ${outcome.mode}, not ${mode}: ${outcome.modeNote ?? "no reason given"}`);
    const ranked = outcome.hits.map((h) => h.record.id.slice(prefix.length));
    acc.add(ranked, q.relevant);
    if (q.split) {
      if (!splits.has(q.split)) splits.set(q.split, createAccumulator());
      splits.get(q.split)!.add(ranked, q.relevant);
    }
    const first = ranked.findIndex((id) => q.relevant.includes(id));
    const inTop10 = first >= 0 && first < 10;
    const mapped = outcome.map?.some((place) => place.ids.some((id) => q.relevant.includes(id.slice(prefix.length)))) ?? false;
    if (outcome.map) {
      maps.shown++;
      maps.chars += JSON.stringify(outcome.map.map(({ ids: _ids, ...place }) => place)).length;
    }
    if (inTop10) maps.inTop10++;
    if (inTop10 || mapped) maps.inTop10OrMap++;
    if (keepMisses > 0 && first !== 0)
      misses.push({ id: q.id, query: q.query, expected: q.relevant, rank: first < 0 ? undefined : first + 1, top: ranked.slice(0, 3) });
  }
  progress?.(mode, queries.length, queries.length);
  const tools = scope.tools;
  const result: ModeResult = acc.result(tools);
  const n = queries.length || 1;
  const share = (x: number) => Math.round((x / n) * 10000) / 10000;
  result.map = {
    shown: share(maps.shown),
    inTop10: share(maps.inTop10),
    inTop10OrMap: share(maps.inTop10OrMap),
    tokensWhenShown: maps.shown ? Math.round(maps.chars / maps.shown / 4) : 0,
  };
  if (splits.size) result.splits = Object.fromEntries([...splits].sort(([a], [b]) => a.localeCompare(b)).map(([split, a]) => [split, a.result(tools)]));
  // Worst first: not found at all, then found lowest.
  if (keepMisses > 0) result.misses = misses.sort((a, b) => (b.rank ?? 11) - (a.rank ?? 11) || a.id.localeCompare(b.id)).slice(0, keepMisses);
  return result;
}

/** The exact-name check (names.ts) over a dataset's tools, in the given mode. */
export async function evaluateNames(dir: string, mode: SearchMode, options: Pick<EvalOptions, "embedder" | "embeddingCache"> = {}): Promise<NamesResult> {
  const dataset = loadDataset(dir);
  if (dataset.tools.live) throw new MetatoolsError("dataset_invalid", `--names reads a tool list (tools.jsonl); ${dir} is a live set`);
  const app = createMetatools(evalConfig(dataset, options));
  await app.start();
  try {
    await app.search.whenIdle();
    return await checkNames(app, NAMESPACE, mode);
  } finally {
    await app.close();
  }
}

/** The dataset's config (search as a fresh install has it, or as a live set's config says) with the embedder and cache asked for. */
function evalConfig(dataset: Dataset, options: Pick<EvalOptions, "embedder" | "embeddingCache" | "catalog" | "serverWords">): ResolvedConfig {
  const { file, live } = dataset.tools;
  const config = live ? liveConfig(file, { catalog: options.catalog ?? true, builtinCatalogDir: BUILTIN_CATALOG_DIR }) : datasetConfig(NAMESPACE, file);
  config.search.serverWords = options.serverWords ?? true;
  if (options.embedder === false) delete config.search.embedder;
  else if (options.embedder) config.search.embedder = options.embedder;
  if (options.embeddingCache !== undefined) config.search.embeddingCache = options.embeddingCache;
  // One principal replays a whole history (replay.ts): no daily allowance applies.
  if (config.learn) config.learn = { ...config.learn, maxEventsPerDay: Number.MAX_SAFE_INTEGER };
  return config;
}
