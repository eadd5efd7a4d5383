/**
 * The sandbox's worker thread: QuickJS compiled to WebAssembly
 * (quickjs-emscripten), one program at a time, each in a fresh runtime and
 * context that are disposed when it ends, so nothing survives between runs
 * or callers. The program's world is guest.ts's; how a failure reads,
 * outcome.ts's; what crosses to the parent, protocol.ts's.
 *
 * Limits: the module's memory is a WebAssembly memory with a fixed maximum
 * (QuickJS's own limit counts allocations, not bytes); CPU time counts only
 * time spent running the program (waiting for a tool costs nothing), and a
 * program past it is interrupted (no catch or finally of its runs); the
 * guest's stack is small and the worker's large, so deep recursion is the
 * program's error, never the host's. A run that corrupts the runtime ends
 * the worker: the parent starts another.
 *
 * The functions are written self-contained and run as the worker's source
 * (`SANDBOX_SOURCE`), the same from the build and from the sources under
 * test: the main one gets the others as `parts`, and loads the engine by
 * the paths the parent resolved.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSSyncVariant, QuickJSWASMModule } from "quickjs-emscripten-core";
import type * as Core from "quickjs-emscripten-core";
import type * as Threads from "node:worker_threads";
import { setUpGuest, type GuestRun, type Slice } from "./guest.js";
import { describeFailure, overCpu } from "./outcome.js";
import type { FromWorker, ToWorker, WorkerOutcome } from "./protocol.js";

interface Parts {
  setUp: typeof setUpGuest;
  failure: typeof describeFailure;
  overCpu: typeof overCpu;
}

/** `load` is the worker script's own `require` (a bundler leaves a parameter's calls alone). */
export function sandboxWorker(parts: Parts, load: (id: string) => unknown): void {
  const { parentPort, workerData } = load("node:worker_threads") as typeof Threads;
  const core = load(workerData.core) as typeof Core;
  const variant = (load(workerData.variant) as { default: QuickJSSyncVariant }).default;
  const PAGE = 65536;
  const memory = new WebAssembly.Memory({ initial: 256, maximum: Math.max(256, Math.floor(workerData.memoryBytes / PAGE)) });
  const HEAD = workerData.head as string;
  let current: GuestRun | undefined;
  const send = (message: FromWorker) => parentPort!.postMessage(message);
  const slice: Slice = (run, work) => {
    run.sliceStart = performance.now();
    run.inSlice = true;
    try {
      return work();
    } finally {
      run.inSlice = false;
      run.cpuUsed += performance.now() - run.sliceStart;
    }
  };
  const failure = (run: GuestRun, handle: QuickJSHandle, prefix?: string) => parts.failure(run, handle, prefix, slice, HEAD, parts.overCpu);

  void core.newQuickJSWASMModuleFromVariant(core.newVariant(variant, { wasmMemory: memory })).then((QuickJS) => {
    send({ type: "ready" });
    parentPort!.on("message", (message: ToWorker) => {
      if (message.type === "run") start(QuickJS, message);
      else if (current && message.runId === current.runId) {
        if (message.type === "answer") answer(current, message);
        else cancel(current, message.reason);
      }
    });
  });

  function start(QuickJS: QuickJSWASMModule, message: Extract<ToWorker, { type: "run" }>): void {
    const rt = QuickJS.newRuntime();
    rt.setMaxStackSize(256 * 1024);
    const ctx = rt.newContext();
    const run: GuestRun = {
      runId: message.runId,
      rt,
      ctx,
      limits: message.limits,
      cpuUsed: 0,
      sliceStart: 0,
      inSlice: false,
      pending: new Map(),
      calls: 0,
      logs: 0,
      handles: [],
      promise: undefined,
      done: false,
      cancelled: undefined,
      overCalls: false,
      parse: () => ctx.undefined,
      returned: undefined,
      assign: undefined,
      object: undefined,
      textOf: () => "null",
      warnings: undefined,
      dropped: undefined,
    };
    current = run;
    // Only time spent running the program counts; a cancel stops it at its next check as well.
    rt.setInterruptHandler(() => run.cancelled !== undefined || (run.inSlice && run.cpuUsed + (performance.now() - run.sliceStart) > run.limits.cpuMs));
    try {
      parts.setUp(run, message.inputJson, slice, send);
      const evaluated = slice(run, () => ctx.evalCode(`${HEAD}${message.code}\n})()`, "program.js", { type: "global" }));
      if (evaluated.error) return finish(run, failure(run, evaluated.error), evaluated.error);
      run.promise = evaluated.value;
      pump(run);
    } catch (error) {
      fatal(run, error);
    }
  }

  function answer(run: GuestRun, message: Extract<ToWorker, { type: "answer" }>): void {
    const deferred = run.pending.get(message.callId);
    if (!deferred || run.done) return;
    run.pending.delete(message.callId);
    const { ctx } = run;
    try {
      if (run.cpuUsed > run.limits.cpuMs) return finish(run, parts.overCpu(run));
      if (message.ok) {
        const value = run.parse(message.json);
        for (const warning of message.warnings ?? []) {
          const text = ctx.newString(warning);
          const length = ctx.getProp(run.warnings!, "length");
          const at = ctx.typeof(length) === "number" ? ctx.getNumber(length) : 0;
          length.dispose();
          ctx.setProp(run.warnings!, at, text);
          text.dispose();
        }
        deferred.resolve(value);
        value.dispose();
      } else {
        // A tool's refusal reaches the program as an Error with the refusal's fields (code, hint, problems, next, …).
        const fields = run.parse(message.errorJson);
        const said = ctx.getProp(fields, "message");
        const error = ctx.newError({ name: "ToolError", message: ctx.typeof(said) === "string" ? ctx.getString(said) : "the call failed" });
        said.dispose();
        const assigned = ctx.callFunction(run.assign!, run.object!, error, fields);
        (assigned.error ?? assigned.value).dispose();
        fields.dispose();
        deferred.reject(error);
        error.dispose();
      }
      deferred.dispose();
      pump(run);
    } catch (error) {
      fatal(run, error);
    }
  }

  function cancel(run: GuestRun, reason: string): void {
    run.cancelled = reason;
    if (!run.inSlice) finish(run, { ok: false, kind: "cancelled", name: "CancelledError", message: reason, droppedLogs: 0 });
  }

  /** Runs what the program can do now; then it waits for an answer, or it is done. */
  function pump(run: GuestRun): void {
    if (run.done) return;
    const { ctx, rt } = run;
    const jobs = slice(run, () => rt.executePendingJobs());
    if (jobs.error) return finish(run, failure(run, jobs.error), jobs.error);
    const state = ctx.getPromiseState(run.promise!);
    if (state.type === "pending") {
      if (!run.pending.size)
        finish(run, {
          ok: false,
          kind: "deadlock",
          name: "DeadlockError",
          message: "the program waits on a promise that nothing can settle (no tool call is pending)",
          droppedLogs: 0,
        });
      return;
    }
    if (state.type === "rejected") return finish(run, failure(run, state.error), state.error);
    const made = slice(run, () => ctx.callFunction(run.returned!, ctx.undefined, state.value));
    state.value.dispose();
    if (made.error) return finish(run, failure(run, made.error, "its return value cannot be made JSON"), made.error);
    const length = ctx.getProp(made.value, "length");
    const chars = ctx.getNumber(length);
    length.dispose();
    if (chars > run.limits.returnChars) {
      made.value.dispose();
      return finish(run, {
        ok: false,
        kind: "limit",
        limit: "returnChars",
        name: "LimitError",
        message: `the program returned ${chars} characters of JSON, more than the ${run.limits.returnChars} a run may (metatools.scripts.returnChars): return less, or a summary of it`,
        droppedLogs: 0,
      });
    }
    const json = ctx.getString(made.value);
    made.value.dispose();
    finish(run, { ok: true, json, droppedLogs: 0 });
  }

  function finish(run: GuestRun, outcome: WorkerOutcome, ...owned: (QuickJSHandle | undefined)[]): void {
    if (run.done) return;
    run.done = true;
    outcome.droppedLogs = droppedOf(run);
    for (const handle of owned) if (handle?.alive) handle.dispose();
    if (run.promise?.alive) run.promise.dispose();
    for (const deferred of run.pending.values()) deferred.dispose();
    for (const handle of run.handles) if (handle.alive) handle.dispose();
    try {
      run.ctx.dispose();
      run.rt.dispose();
    } catch (error) {
      return fatal(run, error, outcome);
    }
    if (current === run) current = undefined;
    send({ type: "done", runId: run.runId, cpuMs: Math.round(run.cpuUsed), outcome });
  }

  /** The log lines the guest counted past logLines (none if the count cannot be read: a cancelled runtime). */
  function droppedOf(run: GuestRun): number {
    if (!run.dropped?.alive) return 0;
    let read: ReturnType<QuickJSContext["callFunction"]>;
    try {
      read = run.ctx.callFunction(run.dropped, run.ctx.undefined);
    } catch {
      return 0;
    }
    if (read.error) {
      read.error.dispose();
      return 0;
    }
    const count = run.ctx.typeof(read.value) === "number" ? run.ctx.getNumber(read.value) : 0;
    read.value.dispose();
    return count;
  }

  /** The runtime cannot be trusted any more (a host stack overflow, a failed disposal): say how the run ended, and end the worker. */
  function fatal(run: GuestRun, error: unknown, outcome?: WorkerOutcome): void {
    run.done = true;
    const stopped: WorkerOutcome = outcome ?? {
      ok: false,
      kind: "limit",
      limit: "stack",
      name: "LimitError",
      message: `the program was stopped: the sandbox could not go on (${error instanceof Error ? error.message : String(error)})`,
      droppedLogs: 0,
    };
    send({ type: "done", runId: run.runId, cpuMs: Math.round(run.cpuUsed), outcome: stopped });
    process.exit(1);
  }
}

/** The worker's source: the functions above, run as a script. */
export const SANDBOX_SOURCE = `(${sandboxWorker.toString()})({ setUp: (${setUpGuest.toString()}), failure: (${describeFailure.toString()}), overCpu: (${overCpu.toString()}) }, require);`;
