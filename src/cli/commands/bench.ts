import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { coldStart, searchLatency, type LatencyResult } from "../../bench/measure.js";
import { parseFlags, UsageError } from "../flags.js";

/** Targets from the project's acceptance criteria; a ratio ≤ 1 meets the target. */
const TARGETS = { p50At10k: 2, p50At100k: 20, coldStartMs: 1500, rssMb: 300 };

export async function bench(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { sizes: { type: "string" }, runs: { type: "string" } });
  const sizes = (values.sizes ?? "1000,10000,100000").split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--sizes takes whole numbers, e.g. 1000,10000`);
  const runs = Number(values.runs ?? 3);
  const dir = mkdtempSync(join(tmpdir(), "metatools-bench-"));
  try {
    const latency: LatencyResult[] = [];
    for (const size of sizes) {
      process.stderr.write(`bench: search latency at ${size} tools…\n`);
      latency.push(await searchLatency(size, dir));
    }
    process.stderr.write(`bench: cold start at 10000 tools, ${runs} runs…\n`);
    const cold = [];
    for (let i = 0; i < runs; i++) cold.push(await coldStart(10_000, dir));
    cold.sort((a, b) => a.startToFirstSearchMs - b.startToFirstSearchMs);
    const median = cold[Math.floor(cold.length / 2)]!;
    const report = { search: latency, coldStart: { tools: 10_000, runs, medianMs: median.startToFirstSearchMs, rssMb: median.rssMb } };
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
    const lines = [`${"metric".padEnd(38)}${"measured".padStart(10)}${"target".padStart(10)}${"ratio".padStart(8)}`];
    for (const [name, value, target] of rows) {
      const ratio = target ? (value / target).toFixed(2) : "";
      lines.push(`${name.padEnd(38)}${value.toFixed(2).padStart(10)}${(target ? `≤${target}` : "").padStart(10)}${ratio.padStart(8)}${target ? (value <= target ? "  ok" : "  OVER") : ""}`);
    }
    process.stdout.write(`${lines.join("\n")}\n(ratio = measured / target; ≤ 1.00 meets the target)\n`);
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
