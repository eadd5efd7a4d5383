/**
 * A second thread for the int8 scan of a large matrix. The kernel's memory
 * is shared (a WebAssembly memory over a SharedArrayBuffer), so a worker
 * running the same module over the same memory scores some of the rows
 * while the caller scores the others: both take chunks of rows until none
 * is left, and at 100,000 rows of 256 values the scan takes about half as
 * long (docs/retrieval.md). Nothing is copied; each chunk writes its own
 * part of the scores and of the sample.
 *
 * One worker per process, started at the first large matrix and unref'd
 * (it never keeps a process alive). It waits on a shared control block;
 * the caller writes a job there, wakes it, and takes chunks too. The scan
 * stays synchronous, as the caller's selection that follows it needs every
 * score. When the worker cannot start, fails, or is still in the last job
 * after HELPER_WAIT_MS, that scan runs on the caller alone and the helper
 * is not used again: slower, never wrong.
 */
import type * as WorkerThreads from "node:worker_threads";
import type { Worker } from "node:worker_threads";
import type { BestArgs } from "./module.js";
import { lazyRequire } from "../../util/lazy-require.js";
/** Node's worker_threads, loaded at the first worker: most commands start none. */
const threads = lazyRequire<typeof WorkerThreads>("node:worker_threads");

/**
 * Matrices of this many rows or more are scanned on two threads. The scan
 * alone, 256 values a row: 0.23 ms against 0.30 at 20,000 rows, 0.8
 * against 1.45 at 100,000. At 10,000 (0.13 against 0.155) the search's
 * median gained 4% and its slowest searches lost more (a worker late to
 * wake, or descheduled mid-chunk), so smaller matrices are scanned alone.
 */
export const PARALLEL_FROM = 20_000;

/** How long a scan waits for a worker still in the last job before scanning alone from then on. */
const HELPER_WAIT_MS = 2_000;

/** The control block, in int32 slots (helper.ts alone writes and reads it, on both threads). */
const SLOT = {
  /** Counts signals: the worker sleeps until it changes (a job, or messages to take). */
  signal: 0,
  /** The newest job's number. */
  job: 1,
  /** The job's number (16 bits) and its next chunk not yet taken (16 bits): chunks are taken by compare-and-swap. */
  next: 2,
  /** 1 while the worker is in a job. */
  busy: 3,
  /** The chunk the worker last meant to take (stored before it tries). */
  intent: 4,
  matrix: 5,
  chunkRows: 6,
  rows: 7,
  /** `best`'s arguments for the whole matrix: queries, count, codes, dims, qscales, rscales, out, step, sample. */
  args: 8,
} as const;
const SLOTS = 20;

/** Rows per chunk, about: at 256 values a row some 30 µs of work, so neither thread waits long for the other. */
const CHUNK_ROWS = 2048;

/**
 * How long a scan that has taken every chunk waits for the worker's last
 * one before scoring that chunk itself (the worker, descheduled mid-chunk,
 * later writes the same values).
 */
const LATE_MS = 0.25;

/**
 * The worker: instances of the kernel by matrix id (each over its
 * matrix's shared memory, given by message), and a loop that waits for a
 * signal, takes the messages sent meanwhile, and when a job is new takes
 * its chunks until none is left. Run with `eval`, so it is plain
 * JavaScript here; `take` is the same loop the caller runs (helper.ts).
 */
const SOURCE = `
const { parentPort, receiveMessageOnPort, workerData } = require("node:worker_threads");
const control = new Int32Array(workerData.control);
const S = ${JSON.stringify(SLOT)};
const take = ${take.toString()};
const kernels = new Map();
let signal = 0;
let seen = 0;
for (;;) {
  Atomics.wait(control, S.signal, signal);
  signal = Atomics.load(control, S.signal);
  for (let received; (received = receiveMessageOnPort(parentPort)); ) {
    const message = received.message;
    if (message.add !== undefined) kernels.set(message.add, new WebAssembly.Instance(message.module, { env: { memory: message.memory } }).exports);
    else if (message.drop !== undefined) kernels.delete(message.drop);
  }
  const job = Atomics.load(control, S.job);
  if (job === seen) continue;
  seen = job;
  Atomics.store(control, S.busy, 1);
  const kernel = kernels.get(control[S.matrix]);
  if (kernel) take(control, S, job, true, kernel.best);
  Atomics.store(control, S.busy, 0);
  Atomics.notify(control, S.busy);
}
`;

/**
 * Takes the job's chunks one by one until none is left (or the job is no
 * longer the newest), scoring each with `best`; or, given `only`, scores
 * that chunk alone. Run by both threads; self-contained (the worker gets
 * its source), so it names nothing outside it.
 */
function take(control: Int32Array, S: typeof SLOT, job: number, announce: boolean, best: (...args: BestArgs) => void, only?: number): void {
  const tag = job & 0xffff;
  const chunkRows = control[S.chunkRows]!;
  const rows = control[S.rows]!;
  const chunks = Math.ceil(rows / chunkRows);
  const [queries, count, codes, dims, qscales, rscales, out, step, sample] = control.subarray(S.args, S.args + 9);
  for (;;) {
    let chunk = only ?? 0;
    if (only === undefined) {
      const next = Atomics.load(control, S.next);
      chunk = next & 0xffff;
      if (next >>> 16 !== tag || chunk >= chunks) return;
      if (announce) Atomics.store(control, S.intent, chunk);
      if (Atomics.compareExchange(control, S.next, next, next + 1) !== next) continue;
    } else if (chunk >= chunks) return;
    const from = chunk * chunkRows;
    const n = Math.min(rows, from + chunkRows) - from;
    best(queries!, count!, codes! + from * dims!, n, dims!, qscales!, rscales! + from * 4, out! + from * 4, step!, sample! + (from / step!) * 4);
    if (only !== undefined) return;
  }
}

class ScanHelper {
  private readonly control = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  private worker: Worker | undefined;
  private broken = false;
  private job = 0;
  private nextId = 1;
  /** Drops a matrix from the worker once the matrix itself is collected. */
  private readonly finalizer = new FinalizationRegistry<number>((id) => this.drop(id));

  /** Whether scans can be shared with the worker (false once it failed). */
  get usable(): boolean {
    return !this.broken;
  }

  /** Gives the worker a matrix's module and memory; its id for `scan`, or undefined when there is no worker. */
  add(owner: object, module: WebAssembly.Module, memory: WebAssembly.Memory): number | undefined {
    const worker = this.start();
    if (!worker) return undefined;
    const id = this.nextId++;
    worker.postMessage({ add: id, module, memory });
    this.signal();
    this.finalizer.register(owner, id, owner);
    return id;
  }

  /** Forgets a matrix (its memory is freed once the caller drops it too). */
  release(owner: object, id: number): void {
    this.finalizer.unregister(owner);
    this.drop(id);
  }

  /**
   * Scores every row of a matrix (`best`'s arguments for all of them) with
   * the worker: both threads take chunks of rows until none is left, so a
   * worker slow to wake only does less. The chunks start at multiples of
   * the sample's step, so each draws its own part of the sample. Returns
   * false (nothing may have been scored) when the helper failed: then the
   * caller scans alone.
   */
  scan(id: number, whole: BestArgs, best: (...args: BestArgs) => void): boolean {
    const control = this.control;
    // The last job's chunk still being written by a worker that was late: wait for it (its rows may be scanned now).
    if (!this.idle(HELPER_WAIT_MS)) {
      this.fail();
      return false;
    }
    const [queries, count, codes, rows, dims, qscales, rscales, out, step, sample] = whole;
    const chunkRows = Math.ceil(CHUNK_ROWS / step) * step;
    if (Math.ceil(rows / chunkRows) > 0xffff) return false;
    const job = ++this.job;
    control[SLOT.matrix] = id;
    control[SLOT.chunkRows] = chunkRows;
    control[SLOT.rows] = rows;
    control.set([queries, count, codes, dims, qscales, rscales, out, step, sample], SLOT.args);
    Atomics.store(control, SLOT.next, (job & 0xffff) << 16);
    Atomics.store(control, SLOT.job, job);
    this.signal();
    take(control, SLOT, job, false, best);
    // Every chunk is taken; the worker's last one may still be being scored: waited for a moment, then scored here too.
    if (!this.idle(LATE_MS)) take(control, SLOT, job, false, best, Atomics.load(control, SLOT.intent));
    return true;
  }

  /** Waits up to `ms` for the worker to be out of any job; whether it is. */
  private idle(ms: number): boolean {
    const control = this.control;
    const deadline = performance.now() + ms;
    for (;;) {
      if (Atomics.load(control, SLOT.busy) === 0) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(control, SLOT.busy, 1, left);
    }
  }

  private start(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker) return this.worker;
    try {
      const worker = new (threads().Worker)(SOURCE, { eval: true, workerData: { control: this.control.buffer } });
      worker.unref();
      worker.on("error", () => this.fail());
      worker.on("exit", () => this.fail());
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return undefined;
    }
  }

  private drop(id: number): void {
    if (!this.worker || this.broken) return;
    this.worker.postMessage({ drop: id });
    this.signal();
  }

  private signal(): void {
    Atomics.add(this.control, SLOT.signal, 1);
    Atomics.notify(this.control, SLOT.signal);
  }

  private fail(): void {
    this.broken = true;
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}

/** The process' one helper. */
export const scanHelper = new ScanHelper();
