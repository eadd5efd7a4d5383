/**
 * Benchmarks of run_tool against a direct MCP client call to the same stdio
 * backend (the public "everything" server's `echo`, a trivial tool), and of
 * cache hits. Calls alternate between the paths compared, so drift in the
 * machine's load touches both alike.
 */
import { CLI_ENTRY } from "../util/package-root.js";
import { createRequire } from "node:module";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUILTIN_CATALOG_DIR, createMetatools, type Metatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import { createMetaDispatcher } from "../meta/index.js";
import { LOCAL_PRINCIPAL } from "../security/principal.js";

export interface ExecBenchRow {
  name: string;
  medianMs: number;
  p90Ms: number;
  /** The path this one is compared with, and the median added over it. */
  baseline?: string;
  addedMs?: number;
  ratio?: number;
  targetMs?: number;
}

/** The everything server's entry point, when installed (a dev dependency of this repository). */
export function everythingServer(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
  } catch {
    return undefined;
  }
}

const ECHO = { message: "hello" };

export async function execBench(dir: string, options: { calls: number; redisUrl?: string }): Promise<ExecBenchRow[]> {
  const entry = everythingServer();
  if (!entry) throw new Error("the exec benchmark needs @modelcontextprotocol/server-everything (npm install it, or run from the repository)");
  const servers = { everything: { command: process.execPath, args: [entry, "stdio"] } };
  const configFile = join(dir, "exec-bench.json");
  writeFileSync(configFile, JSON.stringify({ mcpServers: servers, metatools: { search: { embeddingCache: false } } }));

  const direct = await connect(process.execPath, [entry, "stdio"]);
  const served = await connect(process.execPath, [CLI_ENTRY, "serve", "--config", configFile, "--log-level", "error"]);
  const app = await openApp(servers, configFile);
  const dispatch = createMetaDispatcher(app);
  const redisApp = options.redisUrl ? await openApp(servers, configFile, options.redisUrl) : undefined;
  try {
    const paths: Record<string, () => Promise<unknown>> = {
      direct: () => direct.callTool({ name: "echo", arguments: ECHO }),
      stdio: () => served.callTool({ name: "run_tool", arguments: { tool_id: "everything:echo", args: ECHO, cache: "bypass" } }),
      inProcess: () => dispatch("run_tool", { tool_id: "everything:echo", args: ECHO, cache: "bypass" }),
      hitDispatch: () => dispatch("run_tool", { tool_id: "everything:echo", args: ECHO }),
      hitExecutor: () => app.executor.run({ toolId: "everything:echo", args: ECHO, principal: LOCAL_PRINCIPAL }),
      ...(redisApp ? { hitRedis: () => redisApp.executor.run({ toolId: "everything:echo", args: ECHO, principal: LOCAL_PRINCIPAL }) } : {}),
    };
    const times = await alternate(paths, options.calls);
    const row = (name: string, key: string, baseline?: [string, string], targetMs?: number): ExecBenchRow => {
      const t = stats(times[key]!);
      if (!baseline) return { name, ...t, targetMs };
      const base = stats(times[baseline[1]]!);
      return { name, ...t, baseline: baseline[0], addedMs: t.medianMs - base.medianMs, ratio: t.medianMs / base.medianMs, targetMs };
    };
    return [
      row("direct client → everything:echo", "direct"),
      row("client → metatools (stdio) → echo", "stdio", ["direct", "direct"], 1),
      row("run_tool in-process → echo", "inProcess", ["direct", "direct"], 1),
      row("cache hit, whole run_tool", "hitDispatch", ["direct", "direct"]),
      row("cache hit, executor (memory)", "hitExecutor", undefined, 0.2),
      ...(redisApp ? [row("cache hit, executor (Redis)", "hitRedis")] : []),
    ];
  } finally {
    await Promise.all([direct.close(), served.close(), app.close(), redisApp?.close()]);
  }
}

async function connect(command: string, args: string[]): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  // The cache folder the run set (runBench): a served child keeps its snapshot there, not in the user's cache.
  const env = { ...getDefaultEnvironment(), ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}) };
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }));
  return client;
}

async function openApp(servers: Record<string, unknown>, file: string, storeUrl?: string): Promise<Metatools> {
  // The default configuration, its embeddings in memory: a benchmark leaves nothing in the user's cache.
  const metatools = { search: { embeddingCache: false as const }, ...(storeUrl ? { store: { url: storeUrl, prefix: `bench-${process.pid}` } } : {}) };
  const config = parseConfig({ mcpServers: servers, metatools }, { file, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  const app = createMetatools(config);
  await app.start();
  return app;
}

/** Runs each path `calls` times after a warm-up, taking the paths in turn; returns each one's times in ms. */
async function alternate(paths: Record<string, () => Promise<unknown>>, calls: number): Promise<Record<string, number[]>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(paths).map((k) => [k, []]));
  for (let i = 0; i < 50; i++) for (const run of Object.values(paths)) await run();
  for (let i = 0; i < calls; i++) {
    for (const [name, run] of Object.entries(paths)) {
      const t0 = performance.now();
      await run();
      times[name]!.push(performance.now() - t0);
    }
  }
  return times;
}

function stats(values: number[]): { medianMs: number; p90Ms: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)]!, p90Ms: sorted[Math.floor(sorted.length * 0.9)]! };
}
