/**
 * The benchmark report as tables, one per suite: the CLI prints them as
 * text, `--report` writes them as Markdown. Where the project has a target,
 * the row shows it and the ratio measured / target (≤ 1.00 meets it).
 */
import type { Table } from "../util/table.js";
import { engineTable } from "./engine-table.js";
import { soakTables } from "./soak/table.js";
import { scriptCostsTable, scriptTasksTable } from "./scripts/table.js";
import type { BenchReport } from "./suite.js";

/** Targets from the project's acceptance criteria. */
export const TARGETS = {
  p50At10k: 2,
  p50At100k: 20,
  coldStartMs: 1500,
  rssMb: 300,
  hybridP50At10k: 15,
  /** First-time indexing (BM25 and every tool embedded, empty cache), by catalog size. */
  indexMs: { 1000: 10_000, 10_000: 60_000 } as Record<number, number>,
  queryEmbeddingP50: 5,
  hybridRssMb: 400,
  warmColdStartMs: 2000,
  /** `metatools search` from the snapshot, spawn to exit, and that over `node -e 0` in the same run. */
  cliSearchMs: 250,
  cliSearchRatio: 3,
  /** The same search with 64 MB of other configs' embeddings in the cache folder, over an empty one: within 10%. */
  fullCacheRatio: 1.1,
  /** stdio: spawn to `initialize` answered (backends slow, silent or missing), and that over `node -e 0`. */
  handshakeMs: 300,
  handshakeRatio: 3.5,
  /** `serve` over a warm tool snapshot (and index cache) to the first search that finds a backend's tools while it starts. */
  snapshotStartMs: 400,
  tokenRatio: 250,
  /** The three definitions and the instructions, cl100k tokens. */
  definitionTokens: 500,
};

export interface Section {
  id: "tokens" | "scripts" | "scripts-costs" | "search" | "hybrid" | "engines" | "exec" | "code" | "http" | "soak" | "soak-verdicts";
  title: string;
  table: Table;
}

export function reportSections(report: BenchReport): Section[] {
  const sections: Section[] = [];
  if (report.tokens.length) sections.push({ id: "tokens", title: "Token economics", table: tokenTable(report) });
  if (report.scripts)
    sections.push(
      { id: "scripts", title: "Programs against step by step", table: scriptTasksTable(report.scripts) },
      { id: "scripts-costs", title: "Programs: the sandbox's own costs", table: scriptCostsTable(report.scripts) },
    );
  if (report.search.length || report.hybrid.length) sections.push({ id: "search", title: "Search", table: searchTable(report) });
  const paired = hybridTable(report);
  if (paired) sections.push({ id: "hybrid", title: "Hybrid against BM25", table: paired });
  if (report.engines?.length) sections.push({ id: "engines", title: "Search engines side by side", table: engineTable(report.engines) });
  if (report.exec.length) sections.push({ id: "exec", title: "run_tool overhead and cache hits", table: execTable(report) });
  if (report.code.length) sections.push({ id: "code", title: "Code tools", table: codeTable(report) });
  if (report.http.length) sections.push({ id: "http", title: "Streamable HTTP under load", table: httpTable(report) });
  if (report.soak) {
    const { samples, verdicts } = soakTables(report.soak);
    sections.push({ id: "soak", title: "Soak: every interval", table: samples }, { id: "soak-verdicts", title: "Soak: verdicts", table: verdicts });
  }
  return sections;
}

const fixed = (v: number, digits = 2) => v.toFixed(digits);
/** 272,846: whole numbers with thousands separators. */
export const int = (v: number) => Math.round(v).toLocaleString("en-US");

function tokenTable(report: BenchReport): Table {
  return {
    head: ["catalog", "tools", "every schema", "metatools flow", "ratio", "tasks", "found in search", "of which: definitions", "search", "describe"],
    rows: report.tokens.map((t) => [
      t.catalog,
      int(t.tools),
      int(t.allSchemas),
      int(t.flow),
      `${fixed(t.ratio, 1)}×`,
      String(t.tasks),
      t.foundInSearch === undefined ? "" : `${fixed(t.foundInSearch * 100, 0)}%`,
      int(t.definitions),
      int(t.search),
      int(t.describe),
    ]),
    note: `tokens per task, cl100k_base. every schema = every backend's tools/list in the context; metatools flow = its 3 tool definitions and instructions + one search_tools reply + one describe_tool reply for the top hit (means over the tasks). found in search = tasks whose reply listed a tool the dataset marks relevant. Targets: ≥ ${TARGETS.tokenRatio}× on a catalog of StableToolBench's size, definitions ≤ ${TARGETS.definitionTokens}`,
  };
}

function searchTable(report: BenchReport): Table {
  const rows: [string, number, number | undefined][] = [];
  for (const l of report.search) {
    const target = l.tools === 10_000 ? TARGETS.p50At10k : l.tools === 100_000 ? TARGETS.p50At100k : undefined;
    rows.push(
      [`BM25 search p50 @ ${int(l.tools)} tools (ms)`, l.p50Ms, target],
      [`BM25 search p99 @ ${int(l.tools)} tools (ms)`, l.p99Ms, undefined],
      [`BM25 index build @ ${int(l.tools)} tools (ms)`, l.indexMs, undefined],
    );
  }
  if (report.coldStart)
    rows.push(
      ["BM25 only: start → first search @ 10,000 tools (ms)", report.coldStart.medianMs, TARGETS.coldStartMs],
      ["BM25 only: RSS @ 10,000 tools (MB)", report.coldStart.rssMb, TARGETS.rssMb],
    );
  for (const h of report.hybrid) {
    rows.push(
      [`first-time indexing (BM25 + embedding, empty cache) @ ${int(h.tools)} tools (ms)`, h.indexMs, TARGETS.indexMs[h.tools]],
      [`embedding @ ${int(h.tools)} tools (tools/s)`, h.embedPerSecond ?? 0, undefined],
    );
  }
  const e = report.embedding;
  if (e) rows.push(["query embedding p50 (ms)", e.queryP50Ms, TARGETS.queryEmbeddingP50], ["query embedding p99 (ms)", e.queryP99Ms, undefined]);
  for (const h of report.hybrid) {
    rows.push(
      [`hybrid p50 @ ${int(h.tools)} tools (ms)`, h.p50Ms, h.tools === 10_000 ? TARGETS.hybridP50At10k : undefined],
      [`hybrid p99 @ ${int(h.tools)} tools (ms)`, h.p99Ms, undefined],
    );
  }
  const learned = report.learned;
  const plain = report.hybrid.find((h) => h.tools === learned?.tools);
  if (learned) {
    rows.push(
      [
        `hybrid p50 with a learned history (${int(learned.learnedSessions ?? 0)} sessions) @ ${int(learned.tools)} tools (ms)`,
        learned.p50Ms,
        TARGETS.hybridP50At10k,
      ],
      [`hybrid p99 with a learned history @ ${int(learned.tools)} tools (ms)`, learned.p99Ms, undefined],
    );
    if (plain) rows.push([`learned history / none, hybrid p50 @ ${int(learned.tools)} tools (ratio)`, learned.p50Ms / plain.p50Ms, undefined]);
  }
  if (report.warmColdStart) {
    rows.push(
      ["hybrid, warm cache: start → first hybrid search @ 10,000 tools (ms)", report.warmColdStart.medianMs, TARGETS.warmColdStartMs],
      ["hybrid: RSS with vectors @ 10,000 tools (MB)", report.warmColdStart.rssMb, TARGETS.hybridRssMb],
    );
  }
  if (report.warmColdStart100k) {
    rows.push(
      ["hybrid, warm cache: start → first hybrid search @ 100,000 tools (ms)", report.warmColdStart100k.medianMs, undefined],
      ["hybrid: RSS with vectors @ 100,000 tools (MB)", report.warmColdStart100k.rssMb, undefined],
    );
  }
  if (report.snapshotStart)
    rows.push([
      `warm snapshot: start → first search finding a backend still starting @ ${int(report.snapshotStart.tools)} tools (ms)${report.snapshotStart.fromSnapshot ? "" : " — NOT answered from the snapshot"}`,
      report.snapshotStart.medianMs,
      TARGETS.snapshotStartMs,
    ]);
  const first = report.firstHour;
  if (first) {
    const node = first.nodeMs;
    rows.push(
      ["node -e 0, spawn to exit, this run (ms)", node, undefined],
      ["stdio: spawn → initialize answered, first launch of a config (ms)", first.firstHandshakeMs, TARGETS.handshakeMs],
      ["stdio: spawn → initialize answered, next launches (ms)", first.handshakeMs, TARGETS.handshakeMs],
      ["stdio handshake, next launches / node -e 0 (ratio)", first.handshakeMs / node, TARGETS.handshakeRatio],
      ["metatools search from the snapshot, empty cache folder, spawn to exit (ms)", first.searchMs, TARGETS.cliSearchMs],
      ["metatools search, empty cache folder / node -e 0 (ratio)", first.searchMs / node, TARGETS.cliSearchRatio],
      ["metatools search, 64 MB of other configs' embeddings / empty cache folder (ratio)", first.searchFullCacheMs / first.searchMs, TARGETS.fullCacheRatio],
      ["metatools search without the code cache (METATOOLS_CODE_CACHE=0) (ms)", first.searchNoCodeCacheMs, undefined],
      ["metatools search, code cache / none (ratio)", first.searchMs / first.searchNoCodeCacheMs, undefined],
    );
  }
  if (report.useEmbedder) {
    const u = report.useEmbedder;
    rows.push(
      ["use embedder: query p50 (ms)", u.queryP50Ms, undefined],
      ["use embedder: query p99 (ms)", u.queryP99Ms, undefined],
      ["use embedder: tools/s", u.toolsPerSecond, undefined],
    );
  }
  return {
    head: ["metric", "measured", "target", "ratio", ""],
    align: ["left", "right", "right", "right", "left"],
    rows: rows.map(([name, value, target]) => [
      name,
      fixed(value),
      target ? `≤${target}` : "",
      target ? fixed(value / target) : "",
      target ? (value <= target ? "ok" : "OVER") : "",
    ]),
    note: `synthetic catalogs; latency through the whole search_tools path (ranking, formatting, budget)${report.embedder ? `; hybrid and embedding rows with the ${report.embedder} embedder` : ""}; start and RSS from a real metatools serve child. ratio = measured / target, ≤ 1.00 meets it`,
  };
}

/** BM25 and hybrid latency side by side at each size measured both ways, and what hybrid costs on top. */
function hybridTable(report: BenchReport): Table | undefined {
  const pairs = report.hybrid.flatMap((h) => {
    const b = report.search.find((l) => l.tools === h.tools);
    return b ? [{ tools: h.tools, b, h }] : [];
  });
  if (!pairs.length) return undefined;
  const times = (v: number, of: number) => (of > 0 ? `${fixed(v / of, 1)}×` : "");
  return {
    head: ["tools", "BM25 p50 ms", "hybrid p50 ms", "hybrid / BM25", "BM25 p99 ms", "hybrid p99 ms", "hybrid / BM25"],
    rows: pairs.map(({ tools, b, h }) => [
      int(tools),
      fixed(b.p50Ms),
      fixed(h.p50Ms),
      times(h.p50Ms, b.p50Ms),
      fixed(b.p99Ms),
      fixed(h.p99Ms),
      times(h.p99Ms, b.p99Ms),
    ]),
    note: `the same synthetic catalogs and queries; hybrid = query embedding + exact vector search + BM25, fused${report.embedder ? ` (${report.embedder} embedder)` : ""}. Targets: BM25 p50 ≤ ${TARGETS.p50At10k} ms and hybrid p50 ≤ ${TARGETS.hybridP50At10k} ms at 10,000 tools`,
  };
}

function execTable(report: BenchReport): Table {
  const cell = (v: number | undefined, digits = 3) => (v === undefined ? "" : fixed(v, digits));
  return {
    head: ["run_tool path", "median ms", "p90 ms", "added ms", "ratio", "target", ""],
    align: ["left", "right", "right", "right", "right", "right", "left"],
    rows: report.exec.map((r) => {
      const measured = r.addedMs ?? r.medianMs;
      const target = r.targetMs === undefined ? "" : `≤${r.targetMs}${r.addedMs !== undefined ? " added" : ""}`;
      return [
        r.name,
        cell(r.medianMs),
        cell(r.p90Ms),
        cell(r.addedMs),
        cell(r.ratio, 2),
        target,
        r.targetMs === undefined ? "" : measured <= r.targetMs ? "ok" : "OVER",
      ];
    }),
    note: 'added = median minus the direct client\'s median; ratio = median / direct median. "stdio" is what an agent sees: one more process hop than direct. "in-process" is metatools\' own work on a call: validation, cache policy, presentation, telemetry, budget',
  };
}

function codeTable(report: BenchReport): Table {
  return {
    head: ["code tool call", "files", "matches", "cold ms", "warm ms", "warm/cold"],
    rows: report.code.map((r) => [r.call, String(r.files), String(r.total), fixed(r.coldMs, 1), fixed(r.warmMs, 1), fixed(r.warmMs / r.coldMs)]),
    note: "cold = first call in a fresh process: every file read and parsed; warm = median of 3 repeats, outlines cached",
  };
}

function httpTable(report: BenchReport): Table {
  return {
    head: ["mode", "calls", "errors", "p50 ms", "p99 ms", "calls/s", "heap MB", "ratio", "RSS MB", "sessions", ""],
    rows: report.http.map((r) => {
      const ratio = r.after.heapMb / r.before.heapMb;
      const ok = r.errors === 0 && ratio <= 1.1 && r.after.sessions === 0;
      return [
        r.mode,
        String(r.clients * r.callsPerClient),
        String(r.errors),
        fixed(r.p50Ms),
        fixed(r.p99Ms),
        fixed(r.callsPerSecond, 0),
        `${r.before.heapMb} → ${r.after.heapMb}`,
        fixed(ratio),
        `${r.before.rssMb} → ${r.after.rssMb}`,
        `${r.before.sessions} → ${r.after.sessions}`,
        ok ? "ok" : "FAIL",
      ];
    }),
    note: `${report.http[0]?.clients ?? 0} concurrent clients, mixed search/describe/run. heap = the server's live heap after a full GC, after a warm-up and after the run; targets: 0 errors, heap after ≤ 1.10 × before, no session left open${report.http.find((r) => r.firstError) ? `. first error: ${report.http.find((r) => r.firstError)!.firstError}` : ""}`,
  };
}
