/**
 * A retrieval dataset folder: `tools.jsonl` ({id, server?, name, description,
 * inputSchema?} per line) and `queries.jsonl` ({id, query, relevant: [ids]}).
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
  toolsFile: string;
  queries: EvalQuery[];
}

export function loadDataset(dir: string): Dataset {
  const toolsFile = join(dir, "tools.jsonl");
  const queriesFile = join(dir, "queries.jsonl");
  for (const file of [toolsFile, queriesFile]) {
    if (!existsSync(file)) throw new MetatoolsError("dataset_invalid", `${file} not found: a dataset folder holds tools.jsonl and queries.jsonl`);
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
  return { dir, toolsFile, queries };
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
