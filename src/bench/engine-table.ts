/**
 * The engines side by side (engines.ts) as a table: per size, each engine's
 * build, latency and memory, and the peers' figures as multiples of
 * metatools' in the same mode (2.0× = the peer takes twice as long, or
 * holds twice as much), with the issue's targets for metatools' own rows.
 */
import type { Table } from "../util/table.js";
import type { EngineRow } from "./engines.js";
import { PARALLEL_FROM } from "../search/kernel/helper.js";

/** metatools' engine, measured beside its peers: hybrid p50 by size (ms), p99 within this many p50s, and memory at 100,000 tools (MB). */
export const ENGINE_TARGETS = { hybridP50: { 10_000: 1, 100_000: 5 } as Record<number, number>, p99OverP50: 4, hybridMemoryMb: 300 };

export function engineTable(rows: readonly EngineRow[]): Table {
  const fixed = (v: number, digits = 2) => v.toFixed(digits);
  const times = (peer: number, ours: number | undefined) => (ours && ours > 0 ? `${fixed(peer / ours, 1)}×` : "");
  return {
    head: ["tools", "engine", "mode", "queries", "build s", "p50 ms", "p99 ms", "memory MB", "build ÷ ours", "p50 ÷ ours", "memory ÷ ours", "target"],
    align: ["right", "left", "left", "right", "right", "right", "right", "right", "right", "right", "right", "left"],
    rows: rows.map((r) => {
      const ours = rows.find((o) => o.engine === "metatools" && o.mode === r.mode && o.tools === r.tools);
      const peer = r.engine !== "metatools";
      return [
        r.tools.toLocaleString("en-US"),
        r.engine,
        r.mode,
        String(r.queries),
        fixed(r.buildMs / 1000),
        fixed(r.p50Ms),
        fixed(r.p99Ms),
        fixed(r.memoryMb, 1),
        peer ? times(r.buildMs, ours?.buildMs) : "",
        peer ? times(r.p50Ms, ours?.p50Ms) : "",
        peer ? times(r.memoryMb, ours?.memoryMb) : "",
        peer ? "" : targetOf(r, rows),
      ];
    }),
    note:
      "each engine in a process of its own over the same documents (every tool's search fields), the same synthetic queries (400, or as many as 45 s of timing took for a slow engine) and, for hybrid, the same vectors from the built-in embedder (queries embedded by it per search, for every engine); " +
      "build = documents given to first answer; memory = heap + external (typed arrays, WebAssembly; metatools' vector kernel's shared memory added) after a full GC, less the same before the build, the documents and vectors given to the engine not counted; peers with their defaults (Orama hybrid: similarity 0, so every tool is ranked as metatools ranks it); " +
      `metatools' vector scan runs on two threads from ${PARALLEL_FROM.toLocaleString("en-US")} tools (a worker over the kernel's shared memory), the peers' searches on one. ` +
      "÷ ours: the peer's figure over metatools' in the same mode (above 1.0× metatools is ahead)",
  };
}

/** What metatools' own row is held to: its hybrid p50 and p99, its BM25 build against MiniSearch's and its BM25 memory against MiniSearch's. */
function targetOf(row: EngineRow, rows: readonly EngineRow[]): string {
  const minisearch = rows.find((o) => o.engine === "minisearch" && o.tools === row.tools);
  const checks: string[] = [];
  if (row.mode === "hybrid") {
    const p50 = ENGINE_TARGETS.hybridP50[row.tools];
    if (p50 !== undefined) checks.push(`p50 ≤ ${p50} ms ${row.p50Ms <= p50 ? "met" : "MISSED"}`);
    checks.push(`p99 ≤ ${ENGINE_TARGETS.p99OverP50}× p50 ${row.p99Ms <= ENGINE_TARGETS.p99OverP50 * row.p50Ms ? "met" : "MISSED"}`);
    if (row.tools === 100_000) checks.push(`memory ≤ ${ENGINE_TARGETS.hybridMemoryMb} MB ${row.memoryMb <= ENGINE_TARGETS.hybridMemoryMb ? "met" : "MISSED"}`);
  } else if (minisearch) {
    checks.push(`build ≤ MiniSearch's ${row.buildMs <= minisearch.buildMs ? "met" : "MISSED"}`);
    checks.push(`memory ≤ MiniSearch's ${row.memoryMb <= minisearch.memoryMb ? "met" : "MISSED"}`);
  }
  return checks.join("; ");
}
