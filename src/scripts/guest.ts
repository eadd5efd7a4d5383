/**
 * A program's world inside the sandbox: `input`, `tools.call/search/
 * describe`, `tools.warnings`, `console.log`, and nothing else; and the
 * run's state the worker keeps beside it.
 *
 * `setUpGuest` runs inside the worker (sandbox-worker.ts puts its source
 * there), so it is self-contained: it uses only its parameters. It takes
 * the context's own JSON and Object.assign before the program runs, so a
 * program that replaces them changes nothing of what crosses the boundary;
 * only strings and numbers cross, made and read by those functions.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import type { FromWorker, WorkerLimits } from "./protocol.js";

/** One run, as the worker keeps it. */
export interface GuestRun {
  runId: number;
  rt: QuickJSRuntime;
  ctx: QuickJSContext;
  limits: WorkerLimits;
  cpuUsed: number;
  sliceStart: number;
  inSlice: boolean;
  pending: Map<number, QuickJSDeferredPromise>;
  calls: number;
  logs: number;
  /** Handles the run owns until it ends. */
  handles: QuickJSHandle[];
  promise: QuickJSHandle | undefined;
  done: boolean;
  cancelled: string | undefined;
  overCalls: boolean;
  parse: (json: string) => QuickJSHandle;
  /** The program's value as JSON text, by the context's own JSON.stringify, kept before the program ran. */
  returned: QuickJSHandle | undefined;
  /** The context's own Object.assign and Object: a refusal's fields go onto its Error with them. */
  assign: QuickJSHandle | undefined;
  object: QuickJSHandle | undefined;
  textOf: (value: QuickJSHandle) => string | { error: QuickJSHandle };
  /** The guest's count of log lines past logLines (console.log's wrapper): read when the run ends. */
  dropped: QuickJSHandle | undefined;
  /** `tools.warnings`: what the result scanner said of the program's calls, for the program to read. */
  warnings: QuickJSHandle | undefined;
}

/** Times `work` as the program's CPU time (the interrupt handler reads it). */
export type Slice = <T>(run: GuestRun, work: () => T) => T;

/** Puts the program's world into its fresh context. */
export function setUpGuest(run: GuestRun, inputJson: string, slice: Slice, send: (message: FromWorker) => void): void {
  type Handle = QuickJSHandle;
  const { ctx } = run;
  const json = ctx.getProp(ctx.global, "JSON");
  const parse = ctx.getProp(json, "parse");
  const stringify = ctx.getProp(json, "stringify");
  const object = ctx.getProp(ctx.global, "Object");
  const assign = ctx.getProp(object, "assign");
  run.handles.push(json, parse, stringify, object, assign);
  run.object = object;
  run.assign = assign;
  run.parse = (text) => {
    const string = ctx.newString(text);
    const parsed = slice(run, () => ctx.callFunction(parse, json, string));
    string.dispose();
    return ctx.unwrapResult(parsed);
  };
  const textOf = (value: Handle): string | { error: Handle } => {
    const made = ctx.callFunction(stringify, json, value);
    if (made.error) return { error: made.error };
    const text = ctx.typeof(made.value) === "string" ? ctx.getString(made.value) : "null";
    made.value.dispose();
    return text;
  };
  run.textOf = textOf;
  const input = run.parse(inputJson);
  ctx.setProp(ctx.global, "input", input);
  input.dispose();

  const tools = ctx.newObject();
  const operation = (op: "call" | "search" | "describe") =>
    ctx.newFunction(op, (...args: Handle[]) => {
      const toolId = op === "call" && ctx.typeof(args[0]!) === "string" ? ctx.getString(args[0]!) : undefined;
      if (op === "call" && toolId === undefined)
        return { error: ctx.newError({ name: "TypeError", message: "tools.call(id, args): the id must be a string, as search_tools gives it" }) };
      const argument = op === "call" ? args[1] : args[0];
      const text = argument === undefined || ctx.typeof(argument) === "undefined" ? "{}" : textOf(argument);
      if (typeof text !== "string") return { error: text.error };
      if (text.length > run.limits.argsChars) {
        const error = ctx.newError({
          name: "ToolError",
          message: `the arguments of this call are ${text.length} characters of JSON, more than the ${run.limits.argsChars} a call may carry; nothing was sent`,
        });
        const code = ctx.newString("invalid_args");
        ctx.setProp(error, "code", code);
        code.dispose();
        return { error };
      }
      if (run.calls >= run.limits.calls) {
        run.overCalls = true;
        return {
          error: ctx.newError({
            name: "LimitError",
            message: `this program made ${run.limits.calls} calls, the most one run may (metatools.scripts.maxCalls)`,
          }),
        };
      }
      const callId = run.calls++;
      const deferred = ctx.newPromise();
      run.pending.set(callId, deferred);
      send({ type: "call", runId: run.runId, callId, op, argsJson: text, ...(toolId !== undefined ? { toolId } : {}) });
      return deferred.handle;
    });
  for (const op of ["call", "search", "describe"] as const) {
    const fn = operation(op);
    ctx.setProp(tools, op, fn);
    fn.dispose();
  }
  run.warnings = ctx.newArray();
  run.handles.push(run.warnings);
  ctx.setProp(tools, "warnings", run.warnings);
  ctx.setProp(ctx.global, "tools", tools);
  tools.dispose();

  // The host hears a line only while it keeps them; past logLines the guest's own wrapper counts the rest without
  // crossing the boundary (a million lines cost the program little), and the count is read when the run ends.
  const emit = ctx.newFunction("emit", (...args: Handle[]) => {
    if (run.logs >= run.limits.logLines) return;
    const parts = args.map((arg) => {
      if (ctx.typeof(arg) === "string") return ctx.getString(arg);
      const text = textOf(arg);
      if (typeof text === "string") return text;
      text.error.dispose();
      return String(ctx.typeof(arg));
    });
    run.logs++;
    const line = parts.join(" ");
    const max = run.limits.logLineChars;
    send({ type: "log", runId: run.runId, line: line.length > max ? `${line.slice(0, max)}… (${line.length} characters)` : line });
  });
  const made = ctx.evalCode(
    "(emit, max) => { let kept = 0, dropped = 0; const log = (...args) => { if (kept >= max) { dropped++; return; } kept++; emit(...args); }; return [log, () => dropped]; }",
  );
  const wrap = ctx.unwrapResult(made);
  const limit = ctx.newNumber(run.limits.logLines);
  const pair = ctx.unwrapResult(ctx.callFunction(wrap, ctx.undefined, emit, limit));
  wrap.dispose();
  limit.dispose();
  emit.dispose();
  const log = ctx.getProp(pair, 0);
  run.dropped = ctx.getProp(pair, 1);
  run.handles.push(run.dropped);
  pair.dispose();
  const console = ctx.newObject();
  for (const name of ["log", "info", "warn", "error"]) ctx.setProp(console, name, log);
  log.dispose();
  ctx.setProp(ctx.global, "console", console);
  console.dispose();

  // What the program returns, as JSON text, by the JSON function kept aside (the program may have replaced the global one).
  run.returned = ctx.newFunction("returned", (value: Handle) => {
    const text = textOf(value);
    if (typeof text !== "string") return { error: text.error };
    return ctx.newString(text);
  });
  run.handles.push(run.returned);
}
