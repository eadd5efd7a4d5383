/**
 * Runs the benchmark suites and gathers one report: search latency and cold
 * start over synthetic catalogs (BM25, and hybrid with the built-in embedder
 * or a word-vectors file), the code tools, run_tool overhead and cache hits,
 * HTTP under load, and token economics; and, only when asked for by name,
 * the soak (soak/run.ts): minutes of churn against one server, with a
 * verdict per resource.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { codeBench, type CodeBenchRow } from "./code.js";
import { encoderBench, type EncoderBench } from "./encoder.js";
import { engineBench, type EngineRow } from "./engines.js";
import { everythingServer, execBench, type ExecBenchRow } from "./exec.js";
import { httpLoad, type HttpLoadResult } from "./http.js";
import { coldStart, searchLatency, type ColdStartResult, type LatencyResult, type SemanticBench } from "./measure.js";
import { firstHour, type FirstHourResult } from "./first-hour.js";
import { soak, type SoakOptions, type SoakResult } from "./soak/run.js";
import { snapshotStart, type SnapshotStartResult } from "./snapshot-start.js";
import { datasetTokens, liveTokens, loadTokenizer, resolvePackage, type TokenRow } from "./tokens.js";
import type { EmbedderConfig } from "../config/resolved.js";
import { installedUseModel } from "../embed/use.js";
import { SUITES, type Suite } from "./suites.js";
import { scriptsBench, type ScriptsBench } from "./scripts/measure.js";

export { SUITES, type Suite };
/** What `--suite all` runs: every suite but the soak, which takes as long as it is told to. */
export const DEFAULT_SUITES: readonly Suite[] = SUITES.filter((s) => s !== "soak");

export interface BenchOptions {
  suites: ReadonlySet<Suite>;
  /** Catalog sizes for search latency. */
  sizes: readonly number[];
  /** Cold starts per median. */
  runs: number;
  codeFiles: number;
  /** Calls per run_tool path. */
  calls: number;
  /** Concurrent HTTP clients, and calls each. */
  clients: number;
  httpCalls: number;
  redisUrl?: string;
  /** Word vectors for the hybrid rows instead of the built-in embedder. */
  vectorsFile?: string;
  /** Retrieval-set folders (tools.jsonl, queries.jsonl) for token economics. */
  datasets: readonly string[];
  /** Tasks (queries) per catalog for token economics. */
  tasks: number;
  soak: SoakOptions;
}

export interface ColdStartSummary {
  tools: number;
  runs: number;
  medianMs: number;
  rssMb: number;
}

export interface BenchReport {
  /** BM25 alone. */
  search: LatencyResult[];
  hybrid: LatencyResult[];
  /** Hybrid at 10,000 tools after a learned history (search that learns from use). */
  learned?: LatencyResult;
  /** What the hybrid rows embed with: "built-in", or the word-vectors file's name. */
  embedder?: string;
  /** That embedder's own costs: query embedding latency, tools embedded per second. */
  embedding?: EncoderBench;
  /** `metatools serve` with BM25 alone. */
  coldStart?: ColdStartSummary;
  /** `metatools serve` with the hybrid rows' embedder and a warm embedding cache. */
  warmColdStart?: ColdStartSummary;
  /** The same at 100,000 tools (when that size is measured): start to the first hybrid search, and RSS then. */
  warmColdStart100k?: ColdStartSummary;
  /** metatools' engine beside MiniSearch and Orama, each in a process of its own. */
  engines?: EngineRow[];
  /** `metatools serve` over a warm snapshot: the first search, while the backend starts. */
  snapshotStart?: SnapshotStartResult;
  /** The stdio handshake and `metatools search` from the snapshot, beside `node -e 0`. */
  firstHour?: FirstHourResult;
  useEmbedder?: EncoderBench;
  code: CodeBenchRow[];
  exec: ExecBenchRow[];
  http: HttpLoadResult[];
  tokens: TokenRow[];
  /** Programs against the same tasks step by step; a sandbox's start; a call's cost in a program. */
  scripts?: ScriptsBench;
  soak?: SoakResult;
}

export async function runBench(options: BenchOptions, progress: (line: string) => void): Promise<BenchReport> {
  const report: BenchReport = { search: [], hybrid: [], code: [], exec: [], http: [], tokens: [] };
  const dir = mkdtempSync(join(tmpdir(), "metatools-bench-"));
  const has = (suite: Suite) => options.suites.has(suite);
  // Everything a run keeps (index cache, snapshots, embeddings) goes to a folder of its own, never the user's cache:
  // each measurement starts from what it says it starts from, and nothing is left behind.
  const cacheHome = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = join(dir, "cache");
  try {
    // Asked for alone, a missing tokenizer is an error; within "all" the other suites still run.
    const count =
      has("tokens") || has("scripts")
        ? await loadTokenizer().catch((error: unknown) =>
            options.suites.size === 1 ? Promise.reject(error) : (progress(`token economics skipped: ${(error as Error).message}`), undefined),
          )
        : undefined;
    if (count && has("scripts")) {
      report.scripts = await scriptsBench(dir, count, progress);
      if (!report.scripts) progress("the filesystem, memory and everything servers are not installed (dev dependencies): programs skipped");
    }
    if (count && has("tokens")) {
      for (const dataset of options.datasets) {
        progress(`token economics on ${dataset}, ${options.tasks} tasks…`);
        report.tokens.push(await datasetTokens(dataset, count, options.tasks));
      }
      progress("token economics on live servers (everything, filesystem, code)…");
      const live = await liveTokens(dir, count);
      if (live) report.tokens.push(live);
      else progress("the everything and filesystem servers are not installed (dev dependencies): live-server row skipped");
    }
    if (has("http")) {
      for (const stateless of [false, true]) {
        progress(`${options.clients} clients × ${options.httpCalls} calls over HTTP${stateless ? " (stateless)" : ""}…`);
        report.http.push(await httpLoad(dir, { clients: options.clients, calls: options.httpCalls, stateless }));
      }
    }
    if (has("exec")) {
      progress(`run_tool against a direct client, ${options.calls} calls per path…`);
      report.exec = await execBench(dir, { calls: options.calls, redisUrl: options.redisUrl });
    }
    if (has("code")) {
      progress(`code tools over ${options.codeFiles} generated files…`);
      report.code = await codeBench(join(dir, "tree"), options.codeFiles);
    }
    if (has("search")) await searchSuite(options, dir, report, progress);
    if (has("soak")) {
      progress(`soak: ${options.soak.clients} clients for ${options.soak.minutes} min against one server with churning backends…`);
      report.soak = await soak(dir, options.soak, progress);
    }
    return report;
  } finally {
    if (cacheHome === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cacheHome;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sessions replayed into the learned history before the learned-search row is measured. */
const LEARNED_SESSIONS = 2000;

async function searchSuite(options: BenchOptions, dir: string, report: BenchReport, progress: (line: string) => void): Promise<void> {
  // First, on a quiet machine: the larger runs below leave the process with a large heap to collect.
  const everything = everythingServer();
  const filesystem = resolvePackage("@modelcontextprotocol/server-filesystem/dist/index.js");
  if (everything && filesystem) {
    progress(`the first hour's waits beside node -e 0 (stdio handshake, metatools search with an empty and a full cache), ${Math.max(options.runs, 5)} runs…`);
    report.firstHour = await firstHour(dir, Math.max(options.runs, 5), { everything, filesystem });
  }
  for (const size of options.sizes) {
    progress(`search latency at ${size} tools…`);
    report.search.push(await searchLatency(size, dir));
  }
  progress(`cold start at 10000 tools (BM25 alone), ${options.runs} runs…`);
  report.coldStart = await medianColdStart(options.runs, dir);
  progress(`start at 10000 tools with a warm snapshot, the backend still starting, ${Math.max(options.runs, 5)} runs…`);
  report.snapshotStart = await snapshotStart(10_000, dir, Math.max(options.runs, 5));
  const vectors = options.vectorsFile;
  const embedder: EmbedderConfig = vectors ? { type: "static", vectors } : { type: "builtin" };
  report.embedder = vectors ? basename(vectors) : "built-in";
  progress(`query embedding with the ${report.embedder} embedder…`);
  report.embedding = await encoderBench(embedder, 2000, 1000);
  // Each size embeds into an empty cache of its own; the warm start then reuses the 10k-tool one.
  const semantic = (size: number): SemanticBench => ({ embedder, cacheDir: join(dir, `embeddings-${size}`) });
  for (const size of options.sizes) {
    progress(`hybrid search at ${size} tools (embedding them first, empty cache)…`);
    report.hybrid.push(await searchLatency(size, dir, semantic(size)));
  }
  if (options.sizes.includes(10_000)) {
    progress(`hybrid search at 10000 tools with a learned history of ${LEARNED_SESSIONS} sessions…`);
    report.learned = await searchLatency(10_000, dir, semantic(10_000), 400, LEARNED_SESSIONS);
    progress(`cold start at 10000 tools, hybrid with a warm embedding cache, ${options.runs} runs…`);
    report.warmColdStart = await medianColdStart(options.runs, dir, semantic(10_000));
  }
  if (options.sizes.includes(100_000)) {
    progress("start at 100000 tools, hybrid with a warm embedding cache (RSS with vectors)…");
    const cold = await coldStart(100_000, dir, semantic(100_000));
    report.warmColdStart100k = { tools: 100_000, runs: 1, medianMs: cold.startToFirstSearchMs, rssMb: cold.rssMb };
  }
  report.engines = await engineBench(options.sizes, 400, progress);
  if (installedUseModel()) {
    progress("the Universal Sentence Encoder (use embedder)…");
    report.useEmbedder = await encoderBench({ type: "use" });
  }
}

async function medianColdStart(runs: number, dir: string, semantic?: SemanticBench): Promise<ColdStartSummary> {
  const cold: ColdStartResult[] = [];
  for (let i = 0; i < runs; i++) cold.push(await coldStart(10_000, dir, semantic));
  cold.sort((a, b) => a.startToFirstSearchMs - b.startToFirstSearchMs);
  const median = cold[Math.floor(cold.length / 2)]!;
  return { tools: 10_000, runs, medianMs: median.startToFirstSearchMs, rssMb: median.rssMb };
}
