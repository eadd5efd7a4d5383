/**
 * The measurements behind `metatools bench`: in-process search latency over
 * synthetic catalogs, and a real `metatools serve` child for cold start and RSS.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMetatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import { createMetaDispatcher } from "../meta/index.js";
import { syntheticQueries, syntheticTools, toJsonl } from "./synthetic.js";

export interface LatencyResult {
  tools: number;
  queries: number;
  p50Ms: number;
  p99Ms: number;
  indexMs: number;
}

export interface ColdStartResult {
  tools: number;
  startToFirstSearchMs: number;
  rssMb: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** search_tools p50/p99 through the full meta-tool path (ranking, formatting, budget) at `size` tools. */
export async function searchLatency(size: number, dir: string, queryCount = 400): Promise<LatencyResult> {
  const file = join(dir, `tools-${size}.jsonl`);
  writeFileSync(file, toJsonl(syntheticTools(size)));
  const config = parseConfig({ mcpServers: { bench: { type: "catalog", tools: file } }, metatools: { builtinCatalog: false } }, { file });
  const app = createMetatools(config);
  const started = performance.now();
  await app.start();
  const indexMs = performance.now() - started;
  const search = createMetaDispatcher(app);
  const queries = syntheticQueries(queryCount);
  for (const query of queries.slice(0, 50)) await search("search_tools", { query });
  const times: number[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    await search("search_tools", { query });
    times.push(performance.now() - t0);
  }
  await app.close();
  times.sort((a, b) => a - b);
  return { tools: size, queries: times.length, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), indexMs };
}

/** Spawns `metatools serve` over a `size`-tool catalog; time from spawn to the first answered search, and the child's RSS then. */
export async function coldStart(size: number, dir: string): Promise<ColdStartResult> {
  const toolsFile = join(dir, `cold-${size}.jsonl`);
  writeFileSync(toolsFile, toJsonl(syntheticTools(size)));
  const configFile = join(dir, `cold-${size}.json`);
  writeFileSync(configFile, JSON.stringify({ mcpServers: { bench: { type: "catalog", tools: toolsFile } } }));
  const cli = fileURLToPath(new URL("../cli/main.js", import.meta.url));
  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "serve", "--config", configFile, "--log-level", "error"], stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  await client.callTool({ name: "search_tools", arguments: { query: "create invoice" } });
  const elapsed = performance.now() - started;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"))?.[1] ?? NaN);
  await client.close();
  return { tools: size, startToFirstSearchMs: elapsed, rssMb: rssKb / 1024 };
}
