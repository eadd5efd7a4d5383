import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { codeBench, type CodeBenchRow } from "../../bench/code.js";
import { execBench, type ExecBenchRow } from "../../bench/exec.js";
import { httpLoad, type HttpLoadResult } from "../../bench/http.js";
import { encoderBench, type EncoderBench } from "../../bench/encoder.js";
import { defaultVectorsFile } from "../../embed/import-vectors.js";
import { installedUseModel } from "../../embed/use.js";
import { coldStart, searchLatency, type ColdStartResult, type LatencyResult, type SemanticBench } from "../../bench/measure.js";
import { intFlag, parseFlags, UsageError } from "../flags.js";

/** Targets from the project's acceptance criteria; a ratio ≤ 1 meets the target. */
const TARGETS = { p50At10k: 2, p50At100k: 20, coldStartMs: 1500, rssMb: 300, hybridP50At10k: 15, warmColdStartMs: 2000 };

export async function bench(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    sizes: { type: "string" },
    runs: { type: "string" },
    "code-files": { type: "string" },
    suite: { type: "string" },
    calls: { type: "string" },
    redis: { type: "string" },
    vectors: { type: "string" },
    clients: { type: "string" },
  });
  const suite = values.suite ?? "all";
  if (!["all", "search", "code", "exec", "http"].includes(suite)) throw new UsageError(`--suite takes all, search, code, exec or http, got "${suite}"`);
  const clients = intFlag(values.clients, "clients", 1) ?? 50;
  const calls = Number(values.calls ?? 300);
  if (!Number.isInteger(calls) || calls < 10) throw new UsageError(`--calls takes a whole number of at least 10, e.g. 300`);
  const codeFiles = Number(values["code-files"] ?? 5000);
  if (!Number.isInteger(codeFiles) || codeFiles < 1) throw new UsageError(`--code-files takes a whole number, e.g. 5000`);
  const sizes = (values.sizes ?? "1000,10000,100000").split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--sizes takes whole numbers, e.g. 1000,10000`);
  const runs = Number(values.runs ?? 3);
  const vectorsFile = values.vectors ? resolve(values.vectors) : defaultVectors();
  if (values.vectors && !existsSync(vectorsFile!)) throw new UsageError(`--vectors: ${vectorsFile} not found; build it with \`metatools vectors import\``);
  const dir = mkdtempSync(join(tmpdir(), "metatools-bench-"));
  try {
    const load: HttpLoadResult[] = [];
    if (suite === "all" || suite === "http") {
      for (const stateless of [false, true]) {
        const perClient = values.calls ? calls : 200;
        process.stderr.write(`bench: ${clients} clients × ${perClient} calls over HTTP${stateless ? " (stateless)" : ""}…\n`);
        load.push(await httpLoad(dir, { clients, calls: perClient, stateless }));
      }
      if (suite === "http") return printHttp(load, values.json ?? false);
    }
    let exec: ExecBenchRow[] = [];
    if (suite === "all" || suite === "exec") {
      process.stderr.write(`bench: run_tool against a direct client, ${calls} calls per path…\n`);
      exec = await execBench(dir, { calls, redisUrl: values.redis });
      if (suite === "exec") return printExec(exec, values.json ?? false);
    }
    let code: CodeBenchRow[] = [];
    if (suite !== "search") {
      process.stderr.write(`bench: code tools over ${codeFiles} generated files…\n`);
      code = await codeBench(join(dir, "tree"), codeFiles);
      if (suite === "code") return printCode(code, values.json ?? false);
    }
    const latency: LatencyResult[] = [];
    for (const size of sizes) {
      process.stderr.write(`bench: search latency at ${size} tools…\n`);
      latency.push(await searchLatency(size, dir));
    }
    process.stderr.write(`bench: cold start at 10000 tools, ${runs} runs…\n`);
    const median = await medianColdStart(runs, dir);
    // The semantic rows: each size embeds into an empty cache of its own; the warm start then reuses the 10k-tool one.
    const semantic = (size: number): SemanticBench | undefined => vectorsFile === undefined ? undefined : { embedder: { type: "static", vectors: vectorsFile }, cacheDir: join(dir, `embeddings-${size}`) };
    const hybrid: LatencyResult[] = [];
    let warm: ColdStartResult | undefined;
    if (vectorsFile) {
      for (const size of sizes) {
        process.stderr.write(`bench: hybrid search at ${size} tools (embedding them first)…\n`);
        hybrid.push(await searchLatency(size, dir, semantic(size)));
      }
      if (sizes.includes(10_000)) {
        process.stderr.write(`bench: cold start at 10000 tools with a warm embedding cache, ${runs} runs…\n`);
        warm = await medianColdStart(runs, dir, semantic(10_000));
      }
    } else process.stderr.write("bench: no word vectors (run `metatools vectors import`, or pass --vectors FILE): hybrid search not measured\n");
    let encoder: EncoderBench | undefined;
    if (installedUseModel()) {
      process.stderr.write("bench: the Universal Sentence Encoder (use embedder)…\n");
      encoder = await encoderBench();
    }
    const report = {
      search: latency,
      coldStart: { tools: 10_000, runs, medianMs: median.startToFirstSearchMs, rssMb: median.rssMb },
      hybrid,
      ...(warm ? { warmColdStart: { tools: 10_000, runs, medianMs: warm.startToFirstSearchMs, rssMb: warm.rssMb } } : {}),
      ...(encoder ? { useEmbedder: encoder } : {}),
      code,
      exec,
      http: load,
    };
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      return 0;
    }
    const rows: [string, number, number | undefined][] = [];
    for (const l of latency) {
      const target = l.tools === 10_000 ? TARGETS.p50At10k : l.tools === 100_000 ? TARGETS.p50At100k : undefined;
      rows.push([`search p50 @ ${l.tools} tools (ms)`, l.p50Ms, target]);
      rows.push([`search p99 @ ${l.tools} tools (ms)`, l.p99Ms, undefined]);
      rows.push([`index build @ ${l.tools} tools (ms)`, l.indexMs, undefined]);
    }
    rows.push(["start → first search @ 10000 (ms)", median.startToFirstSearchMs, TARGETS.coldStartMs]);
    rows.push(["RSS @ 10000 tools (MB)", median.rssMb, TARGETS.rssMb]);
    for (const h of hybrid) {
      rows.push([`hybrid p50 @ ${h.tools} tools (ms)`, h.p50Ms, h.tools === 10_000 ? TARGETS.hybridP50At10k : undefined]);
      rows.push([`hybrid p99 @ ${h.tools} tools (ms)`, h.p99Ms, undefined]);
      rows.push([`index + embed @ ${h.tools} tools (ms)`, h.indexMs, undefined]);
      rows.push([`embedding @ ${h.tools} tools (tools/s)`, h.embedPerSecond ?? 0, undefined]);
    }
    if (warm) {
      rows.push(["warm-cache start → hybrid @ 10000 (ms)", warm.startToFirstSearchMs, TARGETS.warmColdStartMs]);
      rows.push(["RSS with embeddings @ 10000 (MB)", warm.rssMb, undefined]);
    }
    if (encoder) {
      rows.push(["use: query embedding p50 (ms)", encoder.queryP50Ms, undefined]);
      rows.push(["use: query embedding p99 (ms)", encoder.queryP99Ms, undefined]);
      rows.push(["use: embedding (tools/s)", encoder.toolsPerSecond, undefined]);
    }
    const lines = [`${"metric".padEnd(38)}${"measured".padStart(10)}${"target".padStart(10)}${"ratio".padStart(8)}`];
    for (const [name, value, target] of rows) {
      const ratio = target ? (value / target).toFixed(2) : "";
      lines.push(`${name.padEnd(38)}${value.toFixed(2).padStart(10)}${(target ? `≤${target}` : "").padStart(10)}${ratio.padStart(8)}${target ? (value <= target ? "  ok" : "  OVER") : ""}`);
    }
    process.stdout.write(`${lines.join("\n")}\n(ratio = measured / target; ≤ 1.00 meets the target)\n`);
    if (code.length) printCode(code, false);
    if (exec.length) printExec(exec, false);
    if (load.length) printHttp(load, false);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function medianColdStart(runs: number, dir: string, semantic?: SemanticBench): Promise<ColdStartResult> {
  const cold: ColdStartResult[] = [];
  for (let i = 0; i < runs; i++) cold.push(await coldStart(10_000, dir, semantic));
  cold.sort((a, b) => a.startToFirstSearchMs - b.startToFirstSearchMs);
  return cold[Math.floor(cold.length / 2)]!;
}

/** Where `metatools vectors import` writes by default, if it has been run. */
function defaultVectors(): string | undefined {
  const file = defaultVectorsFile();
  return existsSync(file) ? file : undefined;
}

function printCode(rows: CodeBenchRow[], json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ code: rows }, null, 2)}\n`);
    return 0;
  }
  const lines = [`\n${"code tool call".padEnd(34)}${"files".padStart(7)}${"matches".padStart(9)}${"cold ms".padStart(10)}${"warm ms".padStart(10)}${"warm/cold".padStart(11)}`];
  for (const r of rows) {
    lines.push(`${r.call.padEnd(34)}${String(r.files).padStart(7)}${String(r.total).padStart(9)}${r.coldMs.toFixed(1).padStart(10)}${r.warmMs.toFixed(1).padStart(10)}${(r.warmMs / r.coldMs).toFixed(2).padStart(11)}`);
  }
  process.stdout.write(`${lines.join("\n")}\n(cold = first call in a fresh process: every file read and parsed; warm = median of 3 repeats, outlines cached)\n`);
  return 0;
}

function printExec(rows: ExecBenchRow[], json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ exec: rows }, null, 2)}\n`);
    return 0;
  }
  const cell = (v: number | undefined, width: number, digits = 3) => (v === undefined ? "" : v.toFixed(digits)).padStart(width);
  const lines = [`\n${"run_tool path".padEnd(36)}${"median ms".padStart(11)}${"p90 ms".padStart(9)}${"added ms".padStart(10)}${"ratio".padStart(7)}${"target".padStart(10)}`];
  for (const r of rows) {
    const measured = r.addedMs ?? r.medianMs;
    const verdict = r.targetMs === undefined ? "" : measured <= r.targetMs ? "  ok" : "  OVER";
    const target = r.targetMs === undefined ? "" : `≤${r.targetMs}${r.addedMs !== undefined ? " added" : ""}`;
    lines.push(`${r.name.padEnd(36)}${cell(r.medianMs, 11)}${cell(r.p90Ms, 9)}${cell(r.addedMs, 10)}${cell(r.ratio, 7, 2)}${target.padStart(10)}${verdict}`);
  }
  process.stdout.write(
    `${lines.join("\n")}\n(added = median minus the direct client's median; ratio = median / direct median. "stdio" is what an agent sees: one more process hop than direct. "in-process" is metatools' own work on a call: validation, cache policy, presentation, telemetry, budget.)\n`,
  );
  return 0;
}

function printHttp(rows: HttpLoadResult[], json: boolean): number {
  if (json) {
    process.stdout.write(`${JSON.stringify({ http: rows }, null, 2)}\n`);
    return 0;
  }
  const head = ["mode", "calls", "errors", "p50 ms", "p99 ms", "calls/s", "heap MB", "ratio", "RSS MB", "sessions"];
  const widths = [10, 8, 8, 9, 9, 9, 12, 7, 12, 10];
  const cells = (values: string[]) => values.map((v, i) => (i ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("");
  const lines = [`\n${cells(head)}`];
  for (const r of rows) {
    const ratio = r.after.heapMb / r.before.heapMb;
    const ok = r.errors === 0 && ratio <= 1.1 && r.after.sessions === 0;
    lines.push(
      cells([r.mode, String(r.clients * r.callsPerClient), String(r.errors), r.p50Ms.toFixed(2), r.p99Ms.toFixed(2), r.callsPerSecond.toFixed(0), `${r.before.heapMb} → ${r.after.heapMb}`, ratio.toFixed(2), `${r.before.rssMb} → ${r.after.rssMb}`, `${r.before.sessions} → ${r.after.sessions}`]) + (ok ? "  ok" : "  FAIL"),
    );
    if (r.firstError) lines.push(`  first error: ${r.firstError}`);
  }
  process.stdout.write(
    `${lines.join("\n")}\n(${rows[0]?.clients ?? 0} concurrent clients, mixed search/describe/run. heap = the server's live heap after a full GC, after a warm-up and after the run; targets: 0 errors, heap after ≤ 1.10 × before, no session left open)\n`,
  );
  return 0;
}
