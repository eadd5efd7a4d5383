/**
 * The programs benchmark (`npm run bench -- --suite scripts`):
 *
 * - Tokens and turns: each task of tasks.ts through `metatools serve` over
 *   stdio, as one program and step by step. An agent's side of each call is
 *   counted with cl100k (js-tiktoken): what it writes (the tool's name and
 *   arguments, as JSON) and what it reads (the reply's text). Both ways
 *   start with the same search for the task's tools; both answers are
 *   checked against the task's.
 * - A fresh sandbox: a program that returns at once, run again and again on
 *   a warm worker (each run a new QuickJS runtime and context).
 * - Each call's cost in a program over run_tool's own: in-process, the same
 *   tool called by run_tool N times and by one program N times.
 * - Calls at once: ten waits of 100 to 190 ms in one Promise.all, against the
 *   slowest of them made alone.
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BUILTIN_CATALOG_DIR, createMetatools } from "../../app.js";
import { RUN_PROGRAM_ID } from "../../builtin/run-program.js";
import { parseConfig } from "../../config/load.js";
import { createMetaDispatcher } from "../../meta/index.js";
import type { ProgramHost } from "../../model/program.js";
import { Sandboxes } from "../../scripts/sandbox.js";
import { CLI_ENTRY, PACKAGE_ROOT } from "../../util/package-root.js";
import { percentile } from "../measure.js";
import { SCRIPT_TASKS, type MetaCall } from "./tasks.js";

export interface ScriptTaskRow {
  task: string;
  /** Tool calls the task makes (the same either way). */
  calls: number;
  /** Tokens either way, the search both start with left out (it is the same): what the way itself costs. */
  stepTokens: number;
  programTokens: number;
  /** The search both ways start with. */
  searchTokens: number;
  /** Model turns: one per meta-tool call. */
  stepTurns: number;
  programTurns: number;
  /** Both answers are the task's. */
  same: boolean;
}

export interface ScriptsBench {
  tasks: ScriptTaskRow[];
  /** A program that returns at once, start to end, p50 and p99 over `runs`. */
  startP50Ms: number;
  startP99Ms: number;
  runs: number;
  /** run_tool's own path per call, and a program's per call (its start taken out), medians; and the difference. */
  runToolMs: number;
  programCallMs: number;
  perCallOverheadMs: number;
  /** Ten calls at once in a program, against the slowest made alone. */
  parallelMs: number;
  slowestMs: number;
}

export const SCRIPT_TARGETS = { tokenRatio: 5, startP50Ms: 15, perCallOverheadMs: 1, parallelRatio: 1.2 };

/** Calls per path for the overhead, and sandbox runs for the start. */
const CALLS = 50;
const RUNS = 200;

type Count = (text: string) => number;

function resolveServer(name: string): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(`@modelcontextprotocol/server-${name}/dist/index.js`);
  } catch {
    return undefined;
  }
}

/** The three public servers the tasks use (dev dependencies), or undefined when one is not installed. */
function taskServers(dir: string): Record<string, unknown> | undefined {
  const [files, memory, everything] = ["filesystem", "memory", "everything"].map(resolveServer);
  if (!files || !memory || !everything) return undefined;
  return {
    files: { command: process.execPath, args: [files, dir] },
    memory: { command: process.execPath, args: [memory], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
    everything: { command: process.execPath, args: [everything, "stdio"] },
  };
}

export async function scriptsBench(dir: string, count: Count, progress: (line: string) => void): Promise<ScriptsBench | undefined> {
  const servers = taskServers(dir);
  if (!servers) return undefined;
  progress("programs against step by step: the tasks through serve (filesystem, memory, everything)…");
  const tasks = await tokensAndTurns(dir, servers, count);
  progress(`a fresh sandbox, ${RUNS} runs…`);
  const start = await sandboxStart();
  progress(`each call's cost in a program over run_tool's, ${CALLS} calls a path; ten calls at once…`);
  const calls = await callCosts(dir, start.p50);
  return { tasks, startP50Ms: start.p50, startP99Ms: start.p99, runs: RUNS, ...calls };
}

async function tokensAndTurns(dir: string, servers: Record<string, unknown>, count: Count): Promise<ScriptTaskRow[]> {
  const config = join(dir, "scripts-bench.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers, metatools: { code: { enabled: false }, search: { embeddingCache: false } } }));
  const client = new Client({ name: "scripts-bench", version: "1" });
  const env = { ...getDefaultEnvironment(), ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}) };
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI_ENTRY, "serve", "--config", config, "--log-level", "error"], env, stderr: "ignore" }),
  );
  try {
    const rows: ScriptTaskRow[] = [];
    for (const task of SCRIPT_TASKS) {
      const { input, answer } = task.setUp(dir);
      const seen = { tokens: 0, turns: 0, calls: 0 };
      const call: MetaCall = async (tool, args) => {
        const reply = (await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 })) as { content: { text: string }[] };
        const text = reply.content.map((c) => c.text).join("\n");
        seen.tokens += count(JSON.stringify({ name: tool, arguments: args })) + count(text);
        seen.turns++;
        if (tool === "run_tool") seen.calls++;
        return JSON.parse(reply.content[0]!.text) as Record<string, unknown>;
      };
      const measure = async (way: (call: MetaCall) => Promise<unknown>) => {
        Object.assign(seen, { tokens: 0, turns: 0, calls: 0 });
        await call("search_tools", { query: task.query });
        const search = seen.tokens;
        const got = await way(call);
        return { got, ...seen, tokens: seen.tokens - search, search };
      };
      const steps = await measure((c) => task.steps(c, input));
      const program = await measure(async (c) => {
        const body = await c("run_tool", { tool_id: RUN_PROGRAM_ID, args: { code: task.program, input } });
        const structured = body.structured as { result?: unknown } | undefined;
        return structured?.result;
      });
      rows.push({
        task: task.name,
        calls: steps.calls,
        stepTokens: steps.tokens,
        programTokens: program.tokens,
        searchTokens: steps.search,
        stepTurns: steps.turns,
        programTurns: program.turns,
        same: JSON.stringify(steps.got) === JSON.stringify(answer) && JSON.stringify(program.got) === JSON.stringify(answer),
      });
    }
    return rows;
  } finally {
    await client.close();
  }
}

async function sandboxStart(): Promise<{ p50: number; p99: number }> {
  const sandboxes = new Sandboxes({ workers: 1, memoryBytes: 64 << 20 });
  const host: ProgramHost = { call: () => Promise.resolve({ ok: true, value: null }) };
  const limits = { cpuMs: 1000, returnChars: 1000, calls: 10, logLines: 10, logLineChars: 200, argsChars: 1 << 20, concurrency: 1 };
  try {
    const times: number[] = [];
    for (let i = 0; i < RUNS + 20; i++) {
      const t0 = performance.now();
      await sandboxes.run({ code: "return 1", input: null }, limits, host, new AbortController().signal);
      if (i >= 20) times.push(performance.now() - t0);
    }
    return { p50: p(times, 50), p99: p(times, 99) };
  } finally {
    await sandboxes.close();
  }
}

async function callCosts(
  dir: string,
  startMs: number,
): Promise<Pick<ScriptsBench, "runToolMs" | "programCallMs" | "perCallOverheadMs" | "parallelMs" | "slowestMs">> {
  const file = join(dir, "scripts-calls.json");
  const wait = { command: process.execPath, args: [join(PACKAGE_ROOT, "dist", "bench", "scripts", "wait-backend.js")] };
  const config = parseConfig(
    { mcpServers: { wait }, metatools: { code: { enabled: false }, search: { embeddingCache: false } } },
    { file, builtinCatalogDir: BUILTIN_CATALOG_DIR },
  );
  const app = createMetatools(config);
  await app.start();
  const dispatch = createMetaDispatcher(app);
  let tag = 0;
  const runTool = () => dispatch("run_tool", { tool_id: "wait:wait", args: { ms: 0, tag: `t${tag++}` } });
  const program = (calls: number) =>
    dispatch("run_tool", {
      tool_id: RUN_PROGRAM_ID,
      args: { code: `for (let i = 0; i < ${calls}; i++) await tools.call("wait:wait", { ms: 0, tag: input + i }); return 1;`, input: `p${tag++}-` },
    });
  try {
    // Warm both paths, then take them in turn.
    for (let i = 0; i < 20; i++) await runTool();
    await program(CALLS);
    const direct: number[] = [];
    const inProgram: number[] = [];
    for (let round = 0; round < 10; round++) {
      let t0 = performance.now();
      for (let i = 0; i < CALLS; i++) await runTool();
      direct.push((performance.now() - t0) / CALLS);
      t0 = performance.now();
      await program(CALLS);
      inProgram.push((performance.now() - t0 - startMs) / CALLS);
    }
    const runToolMs = p(direct, 50);
    const programCallMs = p(inProgram, 50);
    // Ten waits alone (the slowest of them), then all ten at once in one program.
    const waits = Array.from({ length: 10 }, (_, i) => 100 + i * 10);
    const alone: number[] = [];
    for (const ms of waits) {
      const t0 = performance.now();
      await dispatch("run_tool", { tool_id: "wait:wait", args: { ms, tag: `alone${tag++}` } });
      alone.push(performance.now() - t0);
    }
    const t0 = performance.now();
    await dispatch("run_tool", {
      tool_id: RUN_PROGRAM_ID,
      args: { code: `await Promise.all(input.map((ms, i) => tools.call("wait:wait", { ms, tag: "at-once" + i }))); return 1;`, input: waits },
    });
    const parallelMs = performance.now() - t0;
    return { runToolMs, programCallMs, perCallOverheadMs: programCallMs - runToolMs, parallelMs, slowestMs: Math.max(...alone) };
  } finally {
    await app.close();
  }
}

const p = (values: number[], at: number) =>
  percentile(
    [...values].sort((a, b) => a - b),
    at,
  );
