/**
 * The soak as report tables: one row per sample, then a verdict per
 * resource and the promises checked (handles kept, no faults, a clean
 * shutdown). A resource is bad when it grows; nothing here is bad for
 * falling (a heap that shrinks after the warm-up is no leak).
 */
import type { Table } from "../../util/table.js";
import type { SoakResult, SoakSample } from "./run.js";
import { MIN_POINTS } from "./verdict.js";

export function soakTables(soak: SoakResult): { samples: Table; verdicts: Table } {
  return { samples: samplesTable(soak), verdicts: verdictsTable(soak) };
}

const cell = (v: number | undefined, digits = 0) => (v === undefined ? "" : v.toFixed(digits));
const clock = (t: number) => `${Math.floor(t / 60)}:${String(Math.round(t % 60)).padStart(2, "0")}`;

function samplesTable(soak: SoakResult): Table {
  const rows = soak.samples.map((s: SoakSample, i) => {
    const before = soak.samples[i - 1];
    return [
      clock(s.t),
      cell(s.heapMb),
      cell(s.rssMb),
      cell(s.fds),
      cell(s.children),
      cell(s.threads),
      cell(s.sessions),
      cell(s.outEntries),
      cell(s.storeMb, 1),
      cell(s.lockKb, 1),
      cell(s.embeddingsKb, 1),
      cell(s.snapshotKb, 1),
      String(s.calls - (before?.calls ?? 0)),
      `${s.lost} / ${s.handleReads}`,
      String(s.faults),
      String(s.logErrors),
    ];
  });
  return {
    head: [
      "time",
      "heap MB",
      "RSS MB",
      "fds",
      "children",
      "threads",
      "sessions",
      "handles",
      "store MB",
      "lock KB",
      "embed KB",
      "snap KB",
      "calls",
      "lost / reads",
      "faults",
      "log errors",
    ],
    align: ["right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right"],
    rows,
    note: `${soak.clients} clients on 3 tokens for ${soak.minutes} min, sampled every ${soak.intervalS} s; ${soak.store} store; handles live ${soak.outputTtlMs / 60_000} min, sessions idle out after ${soak.sessionIdleMs / 1000} s. heap = the least of 3 readings of the live heap after a full GC (/healthz?gc=1), 0.5 s apart, so megabyte results in flight are not counted; handles = output handles in the store; calls = in the interval; lost / reads, faults, log errors = totals so far`,
  };
}

function verdictsTable(soak: SoakResult): Table {
  const rows: string[][] = soak.verdicts.map(({ label, verdict: v }) => [
    label,
    v.mean.toFixed(1),
    v.slopePerMinute.toFixed(2),
    v.growth.toFixed(1),
    `±${v.tolerance.toFixed(1)}`,
    v.trend,
    v.trend === "growing" ? "GROWING" : v.trend === "too short" ? "?" : "ok",
  ]);
  const h = soak.handles;
  const c = soak.clientStats;
  const expected = Object.entries(c.recoverable)
    .sort((a, b) => b[1] - a[1])
    .map(([code, n]) => `${code} ${n}`)
    .join(", ");
  rows.push(
    [
      "handles lost (read within their stated lifetime)",
      "",
      "",
      "",
      "",
      `${h.lost} of ${h.reads} reads`,
      h.lost === 0 && h.reads > 0 ? "ok" : h.reads ? "LOST" : "?",
    ],
    ["faults seen by clients (isError, JSON-RPC errors)", "", "", "", "", `${c.faults} of ${c.calls} calls`, c.faults === 0 ? "ok" : "FAULTS"],
    ["errors in the server's log", "", "", "", "", String(soak.logErrors.count), soak.logErrors.count === 0 ? "ok" : "ERRORS"],
    [
      `sessions left ${soak.idle.afterS} s after the last client went`,
      "",
      "",
      "",
      "",
      String(soak.idle.sessions ?? "?"),
      soak.idle.sessions === 0 ? "ok" : "LEFT",
    ],
    [
      "shutdown on SIGTERM (exit code, ms, processes left)",
      "",
      "",
      "",
      "",
      `${soak.shutdown.exitCode}, ${Math.round(soak.shutdown.ms)} ms, ${soak.shutdown.orphans} left`,
      soak.shutdown.exitCode === 0 && soak.shutdown.orphans === 0 ? "ok" : "FAIL",
    ],
  );
  const firsts = [
    h.firstLoss ? `first loss: ${h.firstLoss}` : "",
    c.firstFault ? `first fault: ${c.firstFault}` : "",
    soak.logErrors.first ? `first log error: ${soak.logErrors.first}` : "",
  ].filter(Boolean);
  return {
    head: ["resource", "mean", "slope /min", "growth", "tolerance", "verdict", ""],
    align: ["left", "right", "right", "right", "right", "left", "left"],
    rows,
    note: [
      `over the last half of the run (≥ ${MIN_POINTS} samples): growth = least-squares slope × the half's span; growing when growth > tolerance = max(share × mean, floor) (src/bench/soak/run.ts RESOURCES)`,
      `handles made ${h.made}, evicted as their replies said they might be ${h.evictedAsStated}, read past their lifetime ${h.lateReads} (still found ${h.lateFound}); sessions closed ${c.sessions.closed}, dropped ${c.sessions.dropped}, left open ${c.sessions.leftOpen}`,
      expected ? `expected ok:false answers: ${expected}` : "",
      ...firsts,
    ]
      .filter(Boolean)
      .join(". "),
  };
}
