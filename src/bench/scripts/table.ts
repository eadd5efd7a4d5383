/** The programs benchmark as tables: the tasks both ways side by side, then the sandbox's own costs against their targets. */
import type { Table } from "../../util/table.js";
import { SCRIPT_TARGETS, type ScriptsBench } from "./measure.js";

const int = (v: number) => Math.round(v).toLocaleString("en-US");
const verdict = (met: boolean) => (met ? "met" : "MISSED");

export function scriptTasksTable(bench: ScriptsBench): Table {
  return {
    head: [
      "task",
      "tool calls",
      "tokens, step by step",
      "tokens, one program",
      "fewer",
      "turns, step by step",
      "turns, program",
      "the search both make",
      "same answer",
      "target",
    ],
    align: ["left", "right", "right", "right", "right", "right", "right", "right", "left", "left"],
    rows: bench.tasks.map((t) => {
      const ratio = t.stepTokens / t.programTokens;
      const target = t.calls >= 5 ? `≥ ${SCRIPT_TARGETS.tokenRatio}× ${verdict(ratio >= SCRIPT_TARGETS.tokenRatio)}` : "";
      return [
        t.task,
        String(t.calls),
        int(t.stepTokens),
        int(t.programTokens),
        `${ratio.toFixed(1)}×`,
        String(t.stepTurns),
        String(t.programTurns),
        int(t.searchTokens),
        t.same ? "yes" : "NO",
        target,
      ];
    }),
    note: "cl100k_base tokens an agent writes (each call's name and arguments as JSON, the program's source included) and reads (each reply's text). Both ways start with the same search_tools call, counted apart (its tokens in their own column) and in the turns; turns = meta-tool calls, one model turn each",
  };
}

export function scriptCostsTable(bench: ScriptsBench): Table {
  const parallel = bench.parallelMs / bench.slowestMs;
  return {
    head: ["measure", "value", "target", ""],
    align: ["left", "right", "right", "left"],
    rows: [
      [
        `a fresh sandbox: a program that returns at once, p50 of ${bench.runs} (ms)`,
        bench.startP50Ms.toFixed(2),
        `≤ ${SCRIPT_TARGETS.startP50Ms}`,
        verdict(bench.startP50Ms <= SCRIPT_TARGETS.startP50Ms),
      ],
      ["the same, p99 (ms)", bench.startP99Ms.toFixed(2), "", ""],
      ["one call by run_tool, in-process (ms)", bench.runToolMs.toFixed(3), "", ""],
      ["one call from a program, its start taken out (ms)", bench.programCallMs.toFixed(3), "", ""],
      [
        "a program's call over run_tool's (ms)",
        bench.perCallOverheadMs.toFixed(3),
        `≤ ${SCRIPT_TARGETS.perCallOverheadMs}`,
        verdict(bench.perCallOverheadMs <= SCRIPT_TARGETS.perCallOverheadMs),
      ],
      ["ten calls at once in a program (ms)", bench.parallelMs.toFixed(1), "", ""],
      ["the slowest of the ten, alone (ms)", bench.slowestMs.toFixed(1), "", ""],
      ["at once / slowest alone", `${parallel.toFixed(2)}×`, `≤ ${SCRIPT_TARGETS.parallelRatio}×`, verdict(parallel <= SCRIPT_TARGETS.parallelRatio)],
    ],
    note: "sandbox start: a warm worker, each run a new QuickJS runtime and context; call costs: the same backend tool (a stdio server that answers after ms) through the in-process dispatcher, medians of 10 rounds of 50 calls; ten at once: waits of 100 to 190 ms",
  };
}
