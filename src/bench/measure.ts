/**
 * The measurements behind `metatools bench`: in-process search latency over
 * synthetic catalogs, and a real `metatools serve` child for cold start and RSS.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createMetatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import type { EmbedderConfig } from "../config/resolved.js";
import { createMetaDispatcher } from "../meta/index.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";
import { CLI_ENTRY } from "../util/package-root.js";
import { syntheticQueries, syntheticTools, toJsonl } from "./synthetic.js";

export interface LatencyResult {
  tools: number;
  /** bm25, or hybrid when measured with an embedder. */
  mode: "bm25" | "hybrid";
  queries: number;
  p50Ms: number;
  p99Ms: number;
  /** Start to searchable: BM25's index, and with an embedder every tool embedded too (an empty cache). */
  indexMs: number;
  /** Tools embedded per second while indexing, with an embedder. */
  embedPerSecond?: number;
  /** Sessions replayed into what search learns before measuring. */
  learnedSessions?: number;
}

export interface ColdStartResult {
  tools: number;
  /** Spawn to the first answered search; with an embedder, to the first search ranked hybrid with every tool embedded. */
  startToFirstSearchMs: number;
  rssMb: number;
}

/** What the semantic measurements use: an embedder, and the folder its cache lives in (shared by the runs, so later ones start warm). */
export interface SemanticBench {
  embedder: EmbedderConfig;
  cacheDir: string;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** search_tools p50/p99 through the full meta-tool path (ranking, formatting, budget) at `size` tools; BM25 alone, or hybrid when given an embedder. */
export async function searchLatency(size: number, dir: string, semantic?: SemanticBench, queryCount = 400, learnedSessions = 0): Promise<LatencyResult> {
  const file = join(dir, `tools-${size}.jsonl`);
  writeFileSync(file, toJsonl(syntheticTools(size)));
  // BM25 alone unless an embedder is given (the default config would embed with the built-in one).
  const settings = semantic ? { embedder: semantic.embedder, embeddingCache: semantic.cacheDir } : { embedder: false as const };
  const config = parseConfig(
    {
      mcpServers: { bench: { type: "catalog", tools: file } },
      metatools: { builtinCatalog: false, security: { scan: false, lockFile: false }, search: settings },
    },
    { file },
  );
  const app = createMetatools(config);
  const started = performance.now();
  await app.start();
  await app.search.whenIdle();
  const indexMs = performance.now() - started;
  const embedded = app.search.semantic?.embedded ?? 0;
  const search = createMetaDispatcher(app);
  const queries = syntheticQueries(queryCount);
  // A history to search with: sessions that searched and ran a tool (search learns from them, src/learn/), as the local user the
  // dispatcher searches for, so the learned list is built and fused as it is for a user with that history.
  const tools = app.registry.namespaceRecords("bench").map((r) => r.id);
  for (let i = 0; i < learnedSessions; i++) {
    await app.learner?.searched(`bench:${i}`, LOCAL_PRINCIPAL, queries[i % queries.length]!, []);
    await app.learner?.ran(`bench:${i}`, LOCAL_PRINCIPAL, tools[(i * 7919) % tools.length]!, true);
  }
  for (const query of queries.slice(0, 50)) await search("search_tools", { query });
  const times: number[] = [];
  for (const query of queries) {
    const t0 = performance.now();
    await search("search_tools", { query });
    times.push(performance.now() - t0);
  }
  await app.close();
  times.sort((a, b) => a - b);
  return {
    tools: size,
    mode: semantic ? "hybrid" : "bm25",
    queries: times.length,
    p50Ms: percentile(times, 50),
    p99Ms: percentile(times, 99),
    indexMs,
    ...(semantic ? { embedPerSecond: embedded / (indexMs / 1000) } : {}),
    ...(learnedSessions ? { learnedSessions } : {}),
  };
}

/**
 * Spawns `metatools serve` over a `size`-tool catalog; time from spawn to
 * the first answered search (with an embedder: the first one ranked hybrid
 * over every tool; without, BM25 alone), and the child's RSS then.
 */
export async function coldStart(size: number, dir: string, semantic?: SemanticBench): Promise<ColdStartResult> {
  const toolsFile = join(dir, `cold-${size}.jsonl`);
  writeFileSync(toolsFile, toJsonl(syntheticTools(size)));
  const configFile = join(dir, `cold-${size}.json`);
  const search = semantic ? { embedder: semantic.embedder, embeddingCache: semantic.cacheDir } : { embedder: false };
  writeFileSync(configFile, JSON.stringify({ mcpServers: { bench: { type: "catalog", tools: toolsFile } }, metatools: { search } }));
  const cli = CLI_ENTRY;
  const started = performance.now();
  // A cache folder of its own, empty: a cold start analyzes every tool (the index cache and snapshot start empty).
  const env = { ...getDefaultEnvironment(), XDG_CACHE_HOME: mkdtempSync(join(dir, "cold-cache-")) };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, "serve", "--config", configFile, "--log-level", "error"],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  for (;;) {
    const result = await client.callTool({ name: "search_tools", arguments: { query: "create invoice" } });
    if (findsCatalog(result) && (!semantic || isFullyHybrid(result))) break;
    if (performance.now() - started > 300_000) throw new Error(`the catalog's tools were not searchable${semantic ? " by meaning" : ""} after 5 minutes`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const elapsed = performance.now() - started;
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${transport.pid}/status`, "utf8"))?.[1] ?? NaN);
  await client.close();
  return { tools: size, startToFirstSearchMs: elapsed, rssMb: rssKb / 1024 };
}

/** A search_tools reply that found the catalog's tools: until they are indexed, a reply over the built-in tools alone would pass for the first search. */
function findsCatalog(result: unknown): boolean {
  const text = (result as { content?: { type: string; text?: string }[] }).content?.[0]?.text ?? "";
  try {
    return ((JSON.parse(text) as { hits?: { id: string }[] }).hits ?? []).some((hit) => hit.id.startsWith("bench:"));
  } catch {
    return false;
  }
}

/** A search_tools reply ranked hybrid with no namespace still being embedded. */
function isFullyHybrid(result: unknown): boolean {
  const text = (result as { content?: { type: string; text?: string }[] }).content?.[0]?.text ?? "";
  try {
    const body = JSON.parse(text) as { mode?: string; warning?: string; notes?: unknown };
    return body.mode === "hybrid" && !JSON.stringify(body).includes("still embedding");
  } catch {
    return false;
  }
}

export interface CliSearchResult {
  runs: number;
  /** `metatools search` from spawn to exit, answered from the snapshot of the backends' last tool lists. */
  medianMs: number;
  /** Backend processes the timed runs started (should be none). */
  spawned: number;
}

/**
 * The CLI as a person runs it: `metatools search "read a file"` over two
 * real servers (everything, filesystem) and one that fails to start, after
 * one run that lists them, keeps their snapshot and remembers the failure.
 * Each timed run must answer without starting any of them.
 */
export async function cliSearch(
  dir: string,
  runs: number,
  servers: { everything: string; filesystem: string },
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<CliSearchResult> {
  const root = join(dir, "cli-root");
  mkdirSync(root, { recursive: true });
  const marks = join(dir, "cli-spawned.log");
  // Each server, when started, leaves a line in `marks`: the timed runs must leave none.
  const marked = (name: string, entry: string, args: string[]) => ({
    command: process.execPath,
    args: [
      "-e",
      `require("fs").appendFileSync(${JSON.stringify(marks)}, "${name}\\n"); process.argv.splice(1, 1); import(${JSON.stringify(pathToFileURL(entry).href)})`,
      "--",
      entry,
      ...args,
    ],
  });
  const configFile = join(dir, "cli.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        everything: marked("everything", servers.everything, ["stdio"]),
        files: marked("files", servers.filesystem, [root]),
        // A server that never starts (as one whose package is gone would): remembered, not started again by each search.
        broken: { command: process.execPath, args: ["-e", `require("fs").appendFileSync(${JSON.stringify(marks)}, "broken\\n"); process.exit(1)`] },
      },
      metatools: { code: { root }, security: { lockFile: false } },
    }),
  );
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, "cli-cache"), ...extraEnv };
  const run = () => spawnSync(process.execPath, [CLI_ENTRY, "search", "read a file", "--config", configFile], { env, stdio: "ignore" });
  run();
  writeFileSync(marks, "");
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const done = run();
    if (done.status !== 0) throw new Error(`metatools search exited with ${done.status}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { runs, medianMs: times[Math.floor(times.length / 2)]!, spawned: readFileSync(marks, "utf8").split("\n").filter(Boolean).length };
}
