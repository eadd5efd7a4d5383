/**
 * How a run that did not return reads as data: the program's error (its
 * name, message, line and column in the program's own source), or the
 * limit it passed. Runs inside the worker (sandbox-worker.ts puts their
 * source there), so each function uses only its parameters.
 */
import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { GuestRun, Slice } from "./guest.js";
import type { WorkerOutcome } from "./protocol.js";

/** What a failure handle says: its name and message, where the program's stack places it; or the limit QuickJS's own error means. */
export function describeFailure(
  run: GuestRun,
  handle: QuickJSHandle,
  prefix: string | undefined,
  slice: Slice,
  head: string,
  overCpu: (run: GuestRun) => WorkerOutcome,
): WorkerOutcome {
  const { ctx } = run;
  // The lines past logLines are the guest's count, which the worker reads when it ends the run.
  const dropped = 0;
  // A property may be a getter of the program's: read within its CPU budget, and a getter that throws reads as nothing.
  const read = (key: string) => {
    try {
      const value = slice(run, () => ctx.getProp(handle, key));
      const type = ctx.typeof(value);
      const text = type === "string" ? ctx.getString(value) : type === "number" ? String(ctx.getNumber(value)) : undefined;
      value.dispose();
      return text;
    } catch {
      return undefined;
    }
  };
  // A thrown value that is no Error: what it is, as JSON (never by the context's dump, which may run the program's getters).
  const thrown = () => {
    if (ctx.typeof(handle) === "string") return ctx.getString(handle);
    const text = slice(run, () => run.textOf(handle));
    if (typeof text === "string") return text;
    text.error.dispose();
    return ctx.typeof(handle);
  };
  let name = "Error";
  let message: string;
  let stack: string | undefined;
  let lineNumber: string | undefined;
  if (ctx.typeof(handle) === "object" && read("message") !== undefined) {
    name = read("name") ?? "Error";
    message = read("message") ?? "";
    stack = read("stack");
    lineNumber = read("lineNumber");
  } else {
    name = "thrown value";
    message = `the program threw ${thrown().slice(0, 1000)}, which is not an Error`;
  }
  if (run.cancelled !== undefined) return { ok: false, kind: "cancelled", name: "CancelledError", message: run.cancelled, droppedLogs: dropped };
  if (name === "InternalError" && message === "interrupted") return overCpu(run);
  if (name === "InternalError" && /out of memory/.test(message))
    return {
      ok: false,
      kind: "limit",
      limit: "memory",
      name: "LimitError",
      message: "the program ran out of memory (metatools.scripts.memoryMb) and was stopped",
      droppedLogs: dropped,
    };
  if ((name === "InternalError" || name === "RangeError") && /stack overflow|call stack size/i.test(message))
    return {
      ok: false,
      kind: "limit",
      limit: "stack",
      name: "LimitError",
      message: "the program recursed too deep (stack overflow) and was stopped",
      droppedLogs: dropped,
    };
  if (run.overCalls && name === "LimitError") return { ok: false, kind: "limit", limit: "calls", name, message, droppedLogs: dropped };
  const at = /program\.js:(\d+):(\d+)/.exec(stack ?? "");
  const line = at ? Number(at[1]) : lineNumber !== undefined ? Number(lineNumber) : undefined;
  let column = at ? Number(at[2]) : undefined;
  // The program's first line follows the wrapper's head on the same line.
  if (line === 1 && column !== undefined) column = Math.max(1, column - head.length);
  return {
    ok: false,
    kind: "thrown",
    name,
    message: prefix ? `${prefix}: ${message}` : message,
    ...(line !== undefined && Number.isFinite(line) ? { line } : {}),
    ...(column !== undefined && Number.isFinite(column) ? { column } : {}),
    droppedLogs: dropped,
  };
}

/** The CPU limit, as the reply says it. */
export function overCpu(run: GuestRun): WorkerOutcome {
  return {
    ok: false,
    kind: "limit",
    limit: "cpuMs",
    name: "LimitError",
    message: `the program ran ${Math.round(run.cpuUsed)} ms of CPU time, more than the ${run.limits.cpuMs} ms a run may (metatools.scripts.cpuMs), and was stopped`,
    droppedLogs: 0,
  };
}
