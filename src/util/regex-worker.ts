/**
 * Matching over large texts (project files, stored outputs) in a worker
 * thread. RE2 is linear in the input, but its work per character grows with
 * the pattern: a pattern within the limits can still take seconds over a
 * 1 MiB line, and on the event loop that would hold every client and the
 * call's own deadline. In a worker the event loop stays free, and when the
 * call is cancelled or times out the worker is terminated, so the work
 * stops too.
 *
 * The worker is plain JavaScript run with `eval` (the same from the build
 * and from the TypeScript sources under test); it loads RE2JS by the path
 * the parent resolved and compiles the spec the parent already validated.
 */
import { createRequire } from "node:module";
import type * as WorkerThreads from "node:worker_threads";
import type { Worker } from "node:worker_threads";
import type { SafeRegex } from "./regex.js";
import { lazyRequire } from "./lazy-require.js";
/** Node's worker_threads, loaded at the first worker: most commands start none. */
const threads = lazyRequire<typeof WorkerThreads>("node:worker_threads");

/** A matching line: 1-based number, and where in it the first match starts. */
export interface LineMatch {
  line: number;
  at: number;
}

/** Most matching lines one text reports: beyond it a caller has long stopped showing them. */
export const MAX_LINE_MATCHES = 100_000;

/**
 * A text whose length times the pattern's weight is under this is searched
 * on the event loop (some milliseconds at worst, and most source files
 * are): a worker's round trip would cost more than the search.
 */
const INLINE_STEPS = 2_000_000;

const SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { RE2JS } = require(workerData.re2js);
let whole, line;
function compile(spec) {
  if (spec.engine === "v8") {
    const flags = spec.flags.replace("m", "");
    whole = new RegExp(spec.source, spec.flags.includes("m") ? flags + "m" : flags);
    const one = new RegExp(spec.source, flags);
    line = (text) => text.search(one);
  } else {
    const re = RE2JS.compile(spec.source, spec.flags);
    whole = { test: (text) => re.test(text) };
    line = (text) => { const m = re.matcher(text); return m.find() ? m.start() : -1; };
  }
}
parentPort.on("message", (message) => {
  if (message.spec) return compile(message.spec);
  // CRLF files: "$" must match before "\\r\\n" as before "\\n".
  const text = message.text.includes("\\r") ? message.text.replace(/\\r\\n/g, "\\n") : message.text;
  const found = [];
  if (whole.test(text)) {
    let start = 0;
    for (let n = 1; start <= text.length && found.length < workerData.max; n++) {
      let end = text.indexOf("\\n", start);
      if (end < 0) end = text.length;
      const at = line(text.slice(start, end));
      if (at >= 0) found.push(n, at);
      start = end + 1;
    }
  }
  parentPort.postMessage(Int32Array.from(found));
});
`;

/**
 * Workers that match one spec's lines; one is kept warm between calls (a
 * new one takes some 50 ms to start). Owned by a backend, closed with it.
 */
export class MatcherPool {
  private idle: Worker | undefined;
  private readonly re2js = createRequire(import.meta.url).resolve("re2js");

  /** A searcher for `regex`; its work ends when `signal` aborts. Close it when done. */
  open(regex: SafeRegex, signal: AbortSignal): LineSearcher {
    return new LineSearcher(
      regex,
      signal,
      () => this.acquire(regex),
      (worker) => this.release(worker),
    );
  }

  private acquire(regex: SafeRegex): Worker {
    const worker = this.idle ?? new (threads().Worker)(SOURCE, { eval: true, workerData: { re2js: this.re2js, max: MAX_LINE_MATCHES } });
    this.idle = undefined;
    worker.ref();
    worker.postMessage({ spec: regex.spec });
    return worker;
  }

  private release(worker: Worker | undefined): void {
    if (worker && !this.idle) {
      // A warm worker must not keep the process alive on its own.
      worker.unref();
      this.idle = worker;
    } else void worker?.terminate();
  }

  async close(): Promise<void> {
    const idle = this.idle;
    this.idle = undefined;
    await idle?.terminate();
  }
}

/** One call's matching: texts in, matching lines out; large ones one at a time in a worker. */
export class LineSearcher {
  private queue: Promise<unknown> = Promise.resolve();
  private worker: Worker | undefined;
  private failed: Error | undefined;
  private closed = false;
  private readonly onAbort = () => this.stop(this.signal.reason instanceof Error ? this.signal.reason : new Error("cancelled"));
  private readonly onError = (error: Error) => this.stop(error);

  constructor(
    private readonly regex: SafeRegex,
    private readonly signal: AbortSignal,
    private readonly acquire: () => Worker,
    private readonly release: (worker: Worker | undefined) => void,
  ) {
    if (signal.aborted) this.onAbort();
    else signal.addEventListener("abort", this.onAbort, { once: true });
  }

  /** The lines of `text` that match, in order; rejects when the call is aborted. */
  search(text: string): Promise<LineMatch[]> {
    if (this.failed) return Promise.reject(this.failed);
    if (text.length * this.regex.weight < INLINE_STEPS) return Promise.resolve(searchLines(this.regex, text));
    const run = this.queue.then(() => this.ask(text));
    this.queue = run.catch(() => {});
    return run;
  }

  private ask(text: string): Promise<LineMatch[]> {
    if (this.failed || this.closed) return Promise.reject(this.failed ?? new Error("closed"));
    if (!this.worker) {
      this.worker = this.acquire();
      this.worker.on("error", this.onError);
    }
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const onMessage = (found: Int32Array) => {
        cleanup();
        const out: LineMatch[] = [];
        for (let i = 0; i < found.length; i += 2) out.push({ line: found[i]!, at: found[i + 1]! });
        resolve(out);
      };
      const onGone = () => {
        cleanup();
        reject(this.failed ?? new Error("the matching worker stopped"));
      };
      const cleanup = () => worker.off("message", onMessage).off("exit", onGone);
      worker.on("message", onMessage).on("exit", onGone);
      worker.postMessage({ text });
    });
  }

  /** Gives the worker back for the next call (or ends it); the searcher is then closed. */
  close(): void {
    this.closed = true;
    this.signal.removeEventListener("abort", this.onAbort);
    const worker = this.worker;
    this.worker = undefined;
    worker?.off("error", this.onError);
    if (worker) this.release(this.failed ? undefined : worker);
  }

  /** Ends the worker at once: the call was aborted, or the worker failed. */
  private stop(reason: Error): void {
    this.failed ??= reason;
    const worker = this.worker;
    this.worker = undefined;
    void worker?.terminate();
  }
}

/** The worker's search, on this thread, for texts small enough: the same lines, the same positions. */
function searchLines(regex: SafeRegex, raw: string): LineMatch[] {
  const text = raw.includes("\r") ? raw.replace(/\r\n/g, "\n") : raw;
  const found: LineMatch[] = [];
  if (!regex.test(text)) return found;
  const lines = text.split("\n");
  for (let i = 0; i < lines.length && found.length < MAX_LINE_MATCHES; i++) {
    const at = regex.search(lines[i]!);
    if (at >= 0) found.push({ line: i + 1, at });
  }
  return found;
}
