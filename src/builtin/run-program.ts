/**
 * `metatools:run_program`: runs an agent's JavaScript program that makes
 * many tool calls in one run_tool call. Its calls' results stay in the
 * program; only what it returns and logs reaches the agent, with a trace of
 * its calls (which tool, how long, cached or not, ok or the error's code,
 * never their data). Every call takes the caller's own run_tool path (the
 * host it is handed, src/meta/program-host.ts); the program runs in the
 * sandbox (src/scripts/), within the limits of metatools.scripts, lowered
 * by the caller's profile. docs/scripts.md says what a program can do.
 */
import * as z from "zod";
import type { ScriptsConfig } from "../config/resolved.js";
import { hint, recoverable } from "../disclosure/guidance.js";
import type { ProgramHost, ProgramOp } from "../model/program.js";
import type { ProgramLimits, Sandboxes } from "../scripts/sandbox.js";
import type { WorkerOutcome } from "../scripts/protocol.js";
import { MAX_TOOL_ID_CHARS } from "../meta/lookup.js";
import { defineTool, type Body } from "./backend.js";

export const RUN_PROGRAM_ID = "metatools:run_program";

/** The longest program accepted, in characters: a program is a page, not a library. */
export const MAX_PROGRAM_CHARS = 256 * 1024;
/** Characters of one log line kept. */
const LOG_LINE_CHARS = 2000;
/** Characters of one call's arguments as JSON: far past what run_tool accepts of them (1 MiB, meta/shape.ts), refused before they leave the sandbox. */
const ARGS_CHARS = 4 << 20;

/**
 * The calls of a run, as the reply's trace shows them, never their data: one
 * entry per tool, outcome and cache status (hit, miss…), in the order each
 * was first made: `n` calls (1 when left out) that took `ms` in all.
 */
export interface TraceEntry {
  /** `tool_id` for a call; `search` or `describe`. */
  call: string;
  n?: number;
  ms: number;
  cache?: string;
  ok: boolean;
  error?: string;
}

/** Adds one call to the trace: to its tool's entry with the same outcome and cache, else as a new entry. */
function note(trace: TraceEntry[], entry: TraceEntry): void {
  const same = trace.find((t) => t.call === entry.call && t.ok === entry.ok && t.error === entry.error && t.cache === entry.cache);
  if (!same) return void trace.push(entry);
  same.n = (same.n ?? 1) + 1;
  same.ms += entry.ms;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** How many calls a trace holds. */
export function callsIn(trace: readonly TraceEntry[]): number {
  return trace.reduce((sum, t) => sum + (t.n ?? 1), 0);
}

export function runProgramTool(sandboxes: () => Sandboxes, scripts: ScriptsConfig) {
  return defineTool({
    name: "run_program",
    title: "Run a program of tool calls",
    description:
      "Run a JavaScript program that calls many tools in one go: `await tools.call(id, args)` (several at once with Promise.all), tools.search({query}), tools.describe({tool_id}), console.log; what it returns comes back, the calls' results stay in the program.",
    args: z.strictObject({
      code: z
        .string()
        .min(1)
        .max(MAX_PROGRAM_CHARS)
        .describe(
          "The program: the body of an async function (await and return at its top level). It has `input`, `tools.call(id, args)`, `tools.search(args)`, `tools.describe(args)`, `tools.warnings` and `console.log`, and nothing else.",
        ),
      input: z.unknown().optional().describe("JSON data the program reads as `input`."),
    }),
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },

    async handle({ code, input }, { host, signal }): Promise<Body> {
      if (!host) return recoverable("program_error", "Programs run only through run_tool (metatools:run_program), which hands them the caller's calls.");
      const limits = limitsFor(scripts, host);
      const trace: TraceEntry[] = [];
      const warnings: string[] = [];
      // Each call is timed and noted as it ends; its data goes to the program only.
      const traced: ProgramHost = {
        call: async (op: ProgramOp, args, toolId, callSignal) => {
          const started = performance.now();
          const answer = await host.call(op, args, toolId, callSignal);
          note(trace, {
            // An id the program made up is the program's text: as long as an id may be, no longer.
            call: op === "call" ? clip(toolId ?? "", MAX_TOOL_ID_CHARS) : op,
            ms: Math.round(performance.now() - started),
            ...(answer.ok && answer.cache ? { cache: answer.cache } : {}),
            ok: answer.ok,
            ...(answer.ok ? {} : { error: answer.error.code }),
          });
          if (answer.ok && answer.warnings) warnings.push(...answer.warnings);
          return answer;
        },
      };
      const run = await sandboxes().run({ code, input }, limits, traced, signal, host.caller);
      const logs = run.logs.length ? { logs: run.logs } : {};
      const dropped = run.outcome.droppedLogs ? { logs_dropped: run.outcome.droppedLogs } : {};
      // The run id names the audit records of its calls.
      const report = { ...(host.run ? { run: host.run } : {}), trace, ...logs, ...dropped, cpu_ms: run.cpuMs, wall_ms: run.wallMs };
      const scanned = warnings.length ? [...new Set(warnings)].join(" ") : undefined;
      if (run.outcome.ok) return { result: JSON.parse(run.outcome.json) as unknown, program: report, ...(scanned ? { warning: scanned } : {}) };
      return failed(run.outcome, report, limits);
    },
  });
}

/** The limits of a run: the server's, each lowered by the caller's profile (never raised). */
function limitsFor(scripts: ScriptsConfig, host: ProgramHost): ProgramLimits {
  const own = host.limits ?? {};
  const lower = (server: number, profile: number | undefined) => (profile === undefined ? server : Math.min(server, profile));
  return {
    cpuMs: lower(scripts.cpuMs, own.cpuMs),
    calls: lower(scripts.maxCalls, own.maxCalls),
    concurrency: lower(scripts.concurrency, own.concurrency),
    logLines: lower(scripts.logLines, own.logLines),
    returnChars: lower(scripts.returnChars, own.returnChars),
    logLineChars: LOG_LINE_CHARS,
    argsChars: ARGS_CHARS,
  };
}

/** A run that did not return: the program's error with its line and column, or the limit it passed, with the calls it made. */
function failed(outcome: Extract<WorkerOutcome, { ok: false }>, report: { trace: TraceEntry[] } & Record<string, unknown>, limits: ProgramLimits): Body {
  const made = callsIn(report.trace);
  const calls = `${made} call${made === 1 ? "" : "s"} made before it ended (trace)`;
  if (outcome.kind === "limit" || outcome.kind === "cancelled") {
    const setting = outcome.limit ? SETTINGS[outcome.limit] : undefined;
    return recoverable(
      "program_limit",
      `The program was stopped: ${outcome.message}; ${calls}.`,
      hint(
        outcome.limit === "cpuMs"
          ? `A loop that never ends, or work better left to a tool: do less in the program (CPU time so far counts; waiting for tools does not, the limit is ${limits.cpuMs} ms).`
          : "Do less in one run: fewer or smaller calls, a smaller value returned; or split it into several runs.",
      ),
      { program: { ...report, ...(outcome.limit ? { limit: outcome.limit } : {}), ...(setting ? { setting } : {}) } },
    );
  }
  const where = outcome.line !== undefined ? ` at line ${outcome.line}${outcome.column !== undefined ? `, column ${outcome.column}` : ""}` : "";
  const what = outcome.kind === "deadlock" ? outcome.message : `${outcome.name}: ${outcome.message}`;
  return recoverable(
    "program_error",
    `The program failed${where}: ${what}; ${calls}.`,
    hint("Fix the program and run it again; a tool's own error is thrown into the program as a ToolError with its code, which it can catch."),
    {
      program: {
        ...report,
        ...(outcome.line !== undefined ? { line: outcome.line } : {}),
        ...(outcome.column !== undefined ? { column: outcome.column } : {}),
      },
    },
  );
}

const SETTINGS: Record<NonNullable<Extract<WorkerOutcome, { ok: false }>["limit"]>, string | undefined> = {
  cpuMs: "metatools.scripts.cpuMs",
  memory: "metatools.scripts.memoryMb",
  returnChars: "metatools.scripts.returnChars",
  calls: "metatools.scripts.maxCalls",
  stack: undefined,
};
