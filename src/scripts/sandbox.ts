/**
 * Runs programs in the sandbox (sandbox-worker.ts): a few long-lived worker
 * threads, each running one program at a time in a fresh QuickJS runtime,
 * so a program that spins occupies its worker and never the event loop
 * every other caller is served on. A program's calls come to `host` here, at
 * most `concurrency` at once (the rest wait their turn in the program's
 * order); what the host answers goes back as JSON data.
 *
 * A run ends when the program returns or throws, passes a limit, is
 * cancelled (`signal`: the call's deadline or its client), or its worker
 * dies: a worker busy past a cancel (a program spinning between two checks)
 * or one whose runtime broke is terminated and replaced, and the run says
 * why. Workers start at the first run, and an idle one does not keep the
 * process alive.
 */
import { createRequire } from "node:module";
import type * as WorkerThreads from "node:worker_threads";
import type { Worker } from "node:worker_threads";
import type { ProgramHost } from "../model/program.js";
import { answerCall } from "./answer.js";
import { SANDBOX_SOURCE } from "./sandbox-worker.js";
import { WRAPPER_HEAD, type FromWorker, type ToWorker, type WorkerLimits, type WorkerOutcome } from "./protocol.js";

/** Node's worker_threads, loaded at the first run: a command that runs no program never reads it. */
const threads = (): typeof WorkerThreads => createRequire(import.meta.url)("node:worker_threads") as typeof WorkerThreads;

export interface ProgramLimits extends WorkerLimits {
  /** Calls of one run answered at once; the rest wait. */
  concurrency: number;
}

export interface ProgramRun {
  outcome: WorkerOutcome;
  logs: string[];
  cpuMs: number;
  wallMs: number;
}

/** How long a worker may take to stop after a cancel before it is terminated (a program spinning between two checks). */
const CANCEL_GRACE_MS = 50;

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  busy: boolean;
}

export class Sandboxes {
  private readonly slots: Slot[] = [];
  private readonly waiting: (() => void)[] = [];
  /** Workers each owner holds now. */
  private readonly held = new Map<string, number>();
  private nextRun = 0;
  private closed = false;
  private readonly paths: { core: string; variant: string };

  constructor(
    private readonly options: {
      /** Workers at most, each running one program at a time. */
      workers: number;
      /** The WebAssembly memory one worker's programs may use, in bytes. */
      memoryBytes: number;
      /** Workers one owner (a caller) holds at once: its next run waits for one of its own, so one caller never holds them all. */
      perOwner?: number;
    },
  ) {
    const require = createRequire(import.meta.url);
    this.paths = { core: require.resolve("quickjs-emscripten-core"), variant: require.resolve("@jitl/quickjs-wasmfile-release-sync") };
  }

  /** Runs `code` with `input`; resolves with how it ended, its log lines and its times. Never rejects for what the program does. */
  async run(program: { code: string; input: unknown }, limits: ProgramLimits, host: ProgramHost, signal: AbortSignal, owner = ""): Promise<ProgramRun> {
    const started = performance.now();
    const slot = await this.acquire(signal, owner);
    if (!slot) return { outcome: stopped("cancelled", signal), logs: [], cpuMs: 0, wallMs: Math.round(performance.now() - started) };
    try {
      return await this.drive(slot, program, limits, host, signal, started);
    } finally {
      this.release(slot, owner);
    }
  }

  /** Terminates every worker. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate().catch(() => 0)));
    for (const wake of this.waiting.splice(0)) wake();
  }

  /** Workers alive now, for tests and doctor. */
  get size(): number {
    return this.slots.length;
  }

  private drive(
    slot: Slot,
    program: { code: string; input: unknown },
    limits: ProgramLimits,
    host: ProgramHost,
    signal: AbortSignal,
    started: number,
  ): Promise<ProgramRun> {
    const runId = ++this.nextRun;
    const { worker } = slot;
    const logs: string[] = [];
    const calls = new AbortController();
    const queue: (() => void)[] = [];
    let active = 0;
    return new Promise<ProgramRun>((resolve) => {
      let settled = false;
      let grace: NodeJS.Timeout | undefined;
      const end = (outcome: WorkerOutcome, cpuMs: number) => {
        if (settled) return;
        settled = true;
        clearTimeout(grace);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        signal.removeEventListener("abort", onAbort);
        calls.abort(new Error("the program ended"));
        resolve({ outcome, logs, cpuMs, wallMs: Math.round(performance.now() - started) });
      };
      const onExit = () => {
        this.forget(slot);
        end(
          {
            ok: false,
            kind: "limit",
            limit: "stack",
            name: "LimitError",
            message: "the sandbox stopped under the program (its worker ended); nothing of it was kept",
            droppedLogs: 0,
          },
          0,
        );
      };
      const onAbort = () => {
        post(worker, { type: "cancel", runId, reason: reasonOf(signal) });
        // A program spinning between two checks cannot read the cancel: its worker goes, and another takes its place.
        grace = setTimeout(() => {
          this.forget(slot);
          void worker.terminate().catch(() => 0);
          end(stopped("cancelled", signal), 0);
        }, CANCEL_GRACE_MS);
      };
      const onMessage = (message: FromWorker) => {
        if (message.type === "ready" || message.runId !== runId) return;
        if (message.type === "log") return void logs.push(message.line);
        if (message.type === "done") return end(message.outcome, message.cpuMs);
        const answer = () => {
          active++;
          void answerCall(message, host, calls.signal).then((reply) => {
            active--;
            queue.shift()?.();
            if (!settled) post(worker, { ...reply, runId });
          });
        };
        if (active < limits.concurrency) answer();
        else queue.push(answer);
      };
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      let inputJson: string;
      try {
        inputJson = JSON.stringify(program.input ?? null);
      } catch {
        inputJson = "null";
      }
      const { concurrency: _concurrency, ...workerLimits } = limits;
      post(worker, { type: "run", runId, code: program.code, inputJson, limits: workerLimits });
    });
  }

  /** A free worker (started if there is room for one more), or undefined if `signal` aborted first. */
  private async acquire(signal: AbortSignal, owner: string): Promise<Slot | undefined> {
    for (;;) {
      if (signal.aborted || this.closed) return undefined;
      const mine = this.held.get(owner) ?? 0;
      const free = this.slots.find((slot) => !slot.busy);
      const slot = mine >= (this.options.perOwner ?? Infinity) ? undefined : (free ?? (this.slots.length < this.options.workers ? this.start() : undefined));
      if (slot) {
        slot.busy = true;
        this.held.set(owner, mine + 1);
        slot.worker.ref();
        try {
          await slot.ready;
          return slot;
        } catch {
          this.forget(slot);
          this.unhold(owner);
          continue;
        }
      }
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener("abort", wake);
          resolve();
        };
        this.waiting.push(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    }
  }

  private release(slot: Slot, owner: string): void {
    slot.busy = false;
    this.unhold(owner);
    // An idle worker does not keep the process alive.
    slot.worker.unref();
    this.wakeAll();
  }

  private unhold(owner: string): void {
    const mine = (this.held.get(owner) ?? 1) - 1;
    if (mine > 0) this.held.set(owner, mine);
    else this.held.delete(owner);
  }

  /** Every waiting run looks again, in the order they came: the first that may take a worker does (one whose owner holds its share waits on). */
  private wakeAll(): void {
    for (const wake of this.waiting.splice(0)) wake();
  }

  private start(): Slot {
    const worker = new (threads().Worker)(SANDBOX_SOURCE, {
      eval: true,
      workerData: { ...this.paths, memoryBytes: this.options.memoryBytes, head: WRAPPER_HEAD },
      // Deep recursion must meet the program's own (small) stack limit long before the worker's.
      resourceLimits: { stackSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== "ready") return;
        worker.off("message", onMessage);
        resolve();
      };
      worker.on("message", onMessage);
      worker.once("error", reject);
      worker.once("exit", () => reject(new Error("the sandbox's worker ended before it was ready")));
    });
    ready.catch(() => {});
    // What a worker or its program would print goes nowhere: stdout is the protocol's.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.on("error", () => this.forget(slot));
    worker.on("exit", () => this.forget(slot));
    const slot: Slot = { worker, ready, busy: false };
    this.slots.push(slot);
    return slot;
  }

  private forget(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    this.wakeAll();
  }
}

function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

function reasonOf(signal: AbortSignal): string {
  return signal.reason instanceof Error ? signal.reason.message : "the run was cancelled";
}

function stopped(kind: "cancelled", signal: AbortSignal): WorkerOutcome {
  return { ok: false, kind, name: "CancelledError", message: reasonOf(signal), droppedLogs: 0 };
}
