/**
 * The soak: a `metatools serve --http` child under churning backends and
 * many clients for `minutes`, sampled every interval (a tenth of the run,
 * between 5 s and 60 s): the server's live heap after a full collection and
 * its open sessions (/healthz), RSS, fds, threads and processes below it
 * (/proc), the files it keeps (store, lock file, embedding cache,
 * snapshot), and what the clients saw (calls, faults, handles lost). Each
 * resource then gets a verdict over the last half of the run (verdict.ts).
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { newStats, runClient, type ClientStats } from "./client.js";
import { HandlePool, type HandleCounts } from "./handles.js";
import { bytesAt, readProcess, readSqliteStore } from "./probe.js";
import { startServer, STORE_PREFIX, waitReady, type Shutdown, type SoakServer } from "./server.js";
import { verdict, type Sample, type TrendRule, type Verdict } from "./verdict.js";
import { boundBody } from "../../util/bounded-body.js";

export interface SoakOptions {
  minutes: number;
  clients: number;
  /** sqlite (default): outputs on disk, counted and sized; memory: the default deployment's LRU, seen only through the heap. */
  store: "sqlite" | "memory";
}

/** One reading; resources undefined where they could not be read. Counters are totals since the start. */
export interface SoakSample {
  t: number;
  heapMb?: number;
  rssMb?: number;
  fds?: number;
  threads?: number;
  children?: number;
  sessions?: number;
  outEntries?: number;
  storeMb?: number;
  lockKb?: number;
  embeddingsKb?: number;
  snapshotKb?: number;
  calls: number;
  faults: number;
  logErrors: number;
  handleReads: number;
  lost: number;
}

type Resource = Exclude<keyof SoakSample, "t" | "calls" | "faults" | "logErrors" | "handleReads" | "lost">;

/**
 * What each resource may grow by over the last half and still be level.
 * Heap: 10 %, at least 2 MB (/healthz reports whole megabytes). RSS: V8
 * and the allocator keep pages they grew into (a burst of 5 MB results
 * raises it for good), so 20 %, at least 32 MB. Counts of things that
 * come and go with the load (fds with connections, sessions with the idle
 * sweep every 30 s, handles with their lifetime) get room for one wave;
 * children are 4 backends, 1 more is a process not reaped; the files the
 * server rewrites should not grow at all once the run is warm.
 */
export const RESOURCES: readonly { key: Resource; label: string; rule: TrendRule }[] = [
  { key: "heapMb", label: "heap MB", rule: { relative: 0.1, floor: 2 } },
  { key: "rssMb", label: "RSS MB", rule: { relative: 0.2, floor: 32 } },
  { key: "fds", label: "open fds", rule: { relative: 0.15, floor: 8 } },
  { key: "children", label: "child processes", rule: { relative: 0, floor: 1 } },
  { key: "threads", label: "threads", rule: { relative: 0.1, floor: 2 } },
  { key: "sessions", label: "HTTP sessions", rule: { relative: 0.25, floor: 8 } },
  { key: "outEntries", label: "output handles held", rule: { relative: 0.2, floor: 5 } },
  { key: "storeMb", label: "store file MB", rule: { relative: 0.2, floor: 10 } },
  { key: "lockKb", label: "lock file KB", rule: { relative: 0.05, floor: 1 } },
  { key: "embeddingsKb", label: "embedding cache KB", rule: { relative: 0.05, floor: 1 } },
  { key: "snapshotKb", label: "snapshot KB", rule: { relative: 0.1, floor: 1 } },
];

export interface SoakResult {
  minutes: number;
  clients: number;
  store: "sqlite" | "memory";
  intervalS: number;
  outputTtlMs: number;
  sessionIdleMs: number;
  samples: SoakSample[];
  verdicts: { key: Resource; label: string; verdict: Verdict }[];
  handles: HandleCounts;
  clientStats: ClientStats;
  logErrors: { count: number; first?: string };
  /** Sessions still open `afterS` seconds after the last client went. */
  idle: { sessions?: number; afterS: number };
  shutdown: Shutdown;
}

/** A session left open keeps its client (and event stream) connected, idle, this long; then the client goes without a DELETE. */
const LEFT_OPEN_MS = 20_000;

export async function soak(dir: string, options: SoakOptions, progress: (line: string) => void): Promise<SoakResult> {
  const runMs = options.minutes * 60_000;
  const intervalS = Math.min(60, Math.max(5, Math.round(runMs / 10_000)));
  // Whole minutes, so the lifetime a reply states ("for N minutes") is exactly the configured one; a quarter of the run, so handles expire within it.
  const outputTtlMs = Math.max(1, Math.round(options.minutes / 4)) * 60_000;
  // Short, so sessions dropped or left open turn over many times within the run (the sweep runs every idle / 2).
  const sessionIdleMs = 10_000;
  const server = await startServer({ dir: join(dir, "soak"), outputTtlMs, sessionIdleMs, store: options.store });
  const stats = newStats();
  const pool = new HandlePool();
  const leftOpen = new Set<Client>();
  let stopping = false;
  try {
    if (!(await waitReady(server.url, 60_000))) progress("the server is not ready after 60 s (see /readyz); soaking anyway");
    const started = Date.now();
    const samples: SoakSample[] = [await sample(server, 0, stats, pool)];
    const release = (client: Client) => (leftOpen.delete(client), client.close().catch(() => {}));
    const clients = Array.from({ length: options.clients }, (_, index) =>
      runClient({
        index,
        url: server.url,
        files: join(dir, "soak", "files"),
        pool,
        stats,
        stopping: () => stopping,
        outputTtlMs,
        leaveOpen: (client) => {
          leftOpen.add(client);
          setTimeout(() => void release(client), LEFT_OPEN_MS).unref();
        },
      }),
    );
    for (let next = intervalS; next * 1000 <= runMs + 1; next += intervalS) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + next * 1000 - Date.now())));
      const reading = await sample(server, (Date.now() - started) / 1000, stats, pool);
      samples.push(reading);
      progress(line(reading));
    }
    stopping = true;
    await Promise.all(clients);
    await Promise.all([...leftOpen].map(release));
    pool.settle();
    // Every client is gone (closed, dropped or released): once the idle limit and a sweep have passed, no session may be left.
    const settleMs = sessionIdleMs * 1.5 + 2000;
    progress(`clients stopped; sessions left after ${settleMs / 1000} s idle…`);
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    const after = { sessions: (await liveHeap(server.url)).sessions, afterS: settleMs / 1000 };
    const verdicts = RESOURCES.flatMap(({ key, label, rule }) => {
      const series = samples.flatMap((s): Sample[] => (s[key] === undefined ? [] : [{ t: s.t, v: s[key] }]));
      return series.length ? [{ key, label, verdict: verdict(series, rule) }] : [];
    });
    const shutdown = await server.stop();
    return {
      ...options,
      intervalS,
      outputTtlMs,
      sessionIdleMs,
      samples,
      verdicts,
      handles: { ...pool.counts },
      clientStats: stats,
      logErrors: server.logErrors(),
      idle: after,
      shutdown,
    };
  } finally {
    stopping = true;
    await server.stop();
  }
}

async function sample(server: SoakServer, t: number, stats: ClientStats, pool: HandlePool): Promise<SoakSample> {
  const health = await liveHeap(server.url);
  const proc = readProcess(server.pid);
  const store = server.files.store ? await readSqliteStore(server.files.store, STORE_PREFIX).catch(() => undefined) : undefined;
  const kb = (path: string) => {
    const bytes = bytesAt(path);
    return bytes === undefined ? undefined : bytes / 1024;
  };
  return {
    t: Math.round(t),
    ...defined({
      heapMb: health.heapMb,
      rssMb: proc.rssMb,
      fds: proc.fds,
      threads: proc.threads,
      children: proc.children,
      sessions: health.sessions,
      outEntries: store?.outEntries,
      storeMb: store ? store.fileBytes / 2 ** 20 : undefined,
      lockKb: kb(server.files.lock),
      embeddingsKb: kb(server.files.embeddings),
      snapshotKb: kb(server.files.snapshots),
    }),
    calls: stats.calls,
    faults: stats.faults,
    logErrors: server.logErrors().count,
    handleReads: pool.counts.reads,
    lost: pool.counts.lost,
  };
}

/** Readings of the live heap a moment apart: the least is what the server keeps, the rest what calls in flight hold (megabyte results). */
const HEAP_READINGS = 3;

/** /healthz after a full collection, HEAP_READINGS times: the least heap, and the sessions of the last reading. */
const HEALTH_MAX_BYTES = 64 << 10;

async function liveHeap(url: string): Promise<{ heapMb?: number; sessions?: number }> {
  let heapMb: number | undefined;
  let sessions: number | undefined;
  for (let i = 0; i < HEAP_READINGS; i++) {
    if (i) await new Promise((resolve) => setTimeout(resolve, 500));
    const health = await fetch(url.replace(/\/mcp$/, "/healthz?gc=1"), { signal: AbortSignal.timeout(10_000) })
      // The server's own health answer is a few hundred bytes: read through the same bounded reader as every answer.
      .then(
        (r) => boundBody(r, HEALTH_MAX_BYTES, () => new Error("the health answer is over 64 KiB")).json() as Promise<{ heapMb?: number; sessions?: number }>,
      )
      .catch(() => ({}) as { heapMb?: number; sessions?: number });
    if (health.heapMb !== undefined) heapMb = Math.min(heapMb ?? Infinity, health.heapMb);
    sessions = health.sessions ?? sessions;
  }
  return { heapMb, sessions };
}

function defined<T extends Record<string, number | undefined>>(values: T): Partial<Record<keyof T, number>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<Record<keyof T, number>>;
}

function line(s: SoakSample): string {
  const mb = (v?: number) => (v === undefined ? "?" : Math.round(v));
  return `soak ${Math.floor(s.t / 60)}:${String(Math.round(s.t % 60)).padStart(2, "0")}: heap ${mb(s.heapMb)} MB, RSS ${mb(s.rssMb)} MB, ${s.fds ?? "?"} fds, ${s.children ?? "?"} children, ${s.sessions ?? "?"} sessions, ${s.calls} calls, ${s.lost} handles lost, ${s.faults} faults`;
}
