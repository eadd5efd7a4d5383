/**
 * A retrieval dataset folder: `queries.jsonl` ({id, query, relevant: [ids]}
 * per line) and the tools, either as `tools.jsonl` ({id, server?, name,
 * title?, description, inputSchema?, _meta?} per line: a tool list as data)
 * or as `metatools.json`, a config whose servers are started and searched
 * as they are (a live set: ids are the served `namespace:name`, and what the
 * servers say of themselves and the curated catalog count as they would).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../config/load.js";
import type { ResolvedConfig } from "../config/resolved.js";
import { MetatoolsError } from "../util/errors.js";

export interface EvalQuery {
  id: string;
  query: string;
  relevant: string[];
  /** The part of the set the query belongs to (a set's own `split` field), reported apart. */
  split?: string;
}

export interface Dataset {
  dir: string;
  /** The tools as data (tools.jsonl), or the config of the servers that list them (metatools.json: a live set). */
  tools: { file: string; live: boolean };
  queries: EvalQuery[];
}

export function loadDataset(dir: string): Dataset {
  const queriesFile = join(dir, "queries.jsonl");
  const listed = join(dir, "tools.jsonl");
  const config = join(dir, "metatools.json");
  const tools = existsSync(listed) ? { file: listed, live: false } : existsSync(config) ? { file: config, live: true } : undefined;
  if (!tools || !existsSync(queriesFile)) {
    const missing = !existsSync(queriesFile) ? queriesFile : `${listed} (or ${config})`;
    throw new MetatoolsError(
      "dataset_invalid",
      `${missing} not found: a dataset folder holds queries.jsonl, and tools.jsonl or a metatools.json naming servers`,
    );
  }
  const queries: EvalQuery[] = [];
  readFileSync(queriesFile, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let row: { id?: unknown; query?: unknown; relevant?: unknown; split?: unknown };
      try {
        row = JSON.parse(line) as typeof row;
      } catch (error) {
        throw new MetatoolsError("dataset_invalid", `${queriesFile}:${i + 1}: not valid JSON: ${(error as Error).message}`);
      }
      if (typeof row.query !== "string" || !Array.isArray(row.relevant)) {
        throw new MetatoolsError("dataset_invalid", `${queriesFile}:${i + 1}: needs "query" (string) and "relevant" (array of tool ids)`);
      }
      queries.push({
        id: String(row.id ?? i + 1),
        query: row.query,
        relevant: row.relevant.map(String),
        ...(typeof row.split === "string" && row.split ? { split: row.split } : {}),
      });
    });
  return { dir, tools, queries };
}

/**
 * A config that serves one tools.jsonl as the catalog-only backend `namespace`
 * and nothing else: no built-in catalog, no code tools, and the tools
 * measured as given (nothing quarantined, nothing pinned beside the file).
 * Search is configured as a fresh install's (hybrid with the built-in
 * embedder), its embeddings and what it learns kept in memory only.
 */
export function datasetConfig(namespace: string, toolsFile: string): ResolvedConfig {
  return parseConfig(
    {
      mcpServers: { [namespace]: { type: "catalog", tools: toolsFile } },
      metatools: {
        builtinCatalog: false,
        code: { enabled: false },
        security: { scan: false, lockFile: false },
        search: { embeddingCache: false },
        // The replay's history is measured, then forgotten: never kept in a learning file the next run would read.
        learn: { persist: false },
      },
    },
    { file: toolsFile },
  );
}

/** `k` queries spread evenly over the file (datasets are often sorted by tool), or all of them. */
export function sampleQueries(queries: readonly EvalQuery[], k: number | undefined): EvalQuery[] {
  if (k === undefined || k >= queries.length) return [...queries];
  const step = queries.length / k;
  return Array.from({ length: k }, (_, i) => queries[Math.floor(i * step)]!);
}

/**
 * A live set's config (its metatools.json) as measured: its servers and
 * settings, with what eval must not do to the machine or the measure taken
 * out (no lock file, no scan holding tools back, embeddings and learning in
 * memory); the curated catalogs only when `catalog`.
 */
export function liveConfig(file: string, options: { catalog: boolean; builtinCatalogDir: string }): ResolvedConfig {
  let raw: { metatools?: Record<string, unknown> } & Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(file, "utf8")) as typeof raw;
  } catch (error) {
    throw new MetatoolsError("dataset_invalid", `cannot read ${file}: ${(error as Error).message}`);
  }
  const own = raw.metatools ?? {};
  const search = (own.search ?? {}) as Record<string, unknown>;
  const metatools = {
    ...own,
    ...(options.catalog ? {} : { builtinCatalog: false, catalogs: [] }),
    security: { ...((own.security ?? {}) as object), scan: false, lockFile: false },
    search: { ...search, embeddingCache: false },
    learn: { persist: false },
  };
  return parseConfig({ ...raw, metatools }, { file, builtinCatalogDir: options.catalog ? options.builtinCatalogDir : undefined });
}
