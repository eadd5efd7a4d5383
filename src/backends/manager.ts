/**
 * Owns the backends' lifecycles: connects them in parallel, each under its
 * own timeout, so a slow or dead backend never holds up the others; lists
 * their tools again on `tools/list_changed`; reconnects a dropped backend
 * with exponential backoff.
 */
import type { UpstreamTool } from "../model/tool.js";
import { isOwnKind } from "../model/transport-kinds.js";
import { errorMessage } from "../util/errors.js";
import { noRedaction } from "../util/redact.js";
import { attemptEnded, attemptsEnded, awaitSignIn, failedState, logOnce, readyState, settle, type Entry } from "./entry.js";
import { BackendError } from "./errors.js";
import { BackendLogs } from "./logs.js";
import { RedactingBackend } from "./redacting.js";
import { RetrySchedule } from "./retry.js";
import { raceAbort } from "../util/abort.js";
import type { BackendState, ManagerOptions, ToolsListener } from "./state.js";
import type { Backend, BackendInfo } from "./types.js";

export type { BackendState, BackendStatus, ManagerOptions, ToolsListener } from "./state.js";

export class BackendManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners: ToolsListener[] = [];
  /** Backends' log messages, and the level they are asked to log at. */
  readonly logs = new BackendLogs();
  private readonly retry: RetrySchedule;
  private closed = false;
  private startup: Promise<void> = Promise.resolve();

  constructor(
    backends: { backend: Backend; spec: Entry["spec"] }[],
    private readonly options: ManagerOptions,
  ) {
    this.retry = new RetrySchedule(options);
    for (const { backend: source, spec } of backends) {
      const backend = options.redact && options.redact !== noRedaction ? new RedactingBackend(source, options.redact) : source;
      const state: BackendState = { namespace: backend.namespace, kind: backend.kind, status: "connecting", toolCount: 0, runnable: backend.runnable };
      const entry: Entry = { backend, spec, state, failures: 0, settled: new Set() };
      backend.onEvent((event) => {
        if (event.type === "tools_changed") void this.refresh(entry);
        else if (event.type === "needs_login") void this.onNeedsLogin(entry, event.message);
        else if (event.type === "log") this.logs.publish(backend.namespace, event);
        else this.onDisconnected(entry, event.error);
      });
      this.entries.set(backend.namespace, entry);
    }
  }

  onTools(listener: ToolsListener): void {
    this.listeners.push(listener);
  }

  /**
   * A backend's tools as last listed (the snapshot), served while it
   * connects: its state says connecting, calls wait for it, and what it
   * lists on connect replaces them (or a failure takes them back).
   */
  preload(namespace: string, tools: UpstreamTool[], info: BackendInfo | undefined): void {
    const entry = this.entries.get(namespace);
    if (!entry || entry.state.status !== "connecting") return;
    entry.preloaded = true;
    if (info?.era) entry.backend.knownEra?.(info.era);
    entry.state = { ...entry.state, toolCount: tools.length, fromSnapshot: true, ...(info ? { info } : {}) };
    this.emit(entry, tools);
  }

  /**
   * A backend this command does not start because it failed a moment ago
   * (remembered across commands, see snapshot.ts): failed, saying why and
   * until when it is left alone.
   */
  remembered(namespace: string, failure: Pick<BackendState, "error" | "fix" | "failedAt" | "retryAt">): void {
    const entry = this.entries.get(namespace);
    if (entry) entry.state = { ...entry.state, ...failure, status: "failed", toolCount: 0 };
  }

  /**
   * Starts the backends at once (those named by `only`, when given; the
   * others stay as they are, their snapshot tools searchable but not run).
   * Settles when each has connected or failed. Never rejects.
   */
  start(only?: readonly string[]): Promise<void> {
    const chosen = [...this.entries.values()].filter((entry) => !only || only.includes(entry.backend.namespace) || isOwnKind(entry.backend.kind)); // metatools's own backends always start
    for (const entry of this.entries.values())
      if (!chosen.includes(entry) && entry.state.status === "connecting") entry.state = { ...entry.state, status: "idle" };
    this.startup = Promise.all(chosen.map((entry) => this.connect(entry, 0))).then(() => undefined);
    return this.startup;
  }

  /**
   * Settles when the backend's current connect attempt ends (ready or not),
   * or `signal` aborts, or its connect timeout passes; at once for a backend
   * not coming up, or known to fail (its last attempt failed): a call does not wait on it.
   */
  whenReady(namespace: string, signal?: AbortSignal): Promise<void> {
    const entry = this.entries.get(namespace);
    const status = entry?.state.status;
    if (!entry || !(status === "connecting" || (status === "reconnecting" && !entry.state.failedAt))) return Promise.resolve();
    return attemptEnded(entry, signal);
  }

  /**
   * Settles when the initial connects are done, or after `ms`, whichever
   * comes first. Backends whose tools are already served from the snapshot
   * are not waited for: their tools are there.
   */
  waitForStartup(ms: number): Promise<void> {
    return attemptsEnded(
      [...this.entries.values()].filter((entry) => !entry.preloaded && (entry.state.status === "connecting" || entry.state.status === "reconnecting")),
      ms,
    );
  }

  states(): BackendState[] {
    return [...this.entries.values()].map((e) => ({ ...e.state }));
  }

  state(namespace: string): BackendState | undefined {
    const entry = this.entries.get(namespace);
    return entry && { ...entry.state };
  }

  backend(namespace: string): Backend | undefined {
    return this.entries.get(namespace)?.backend;
  }

  callTimeoutMs(namespace: string): number | undefined {
    return this.entries.get(namespace)?.spec.callTimeoutMs;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.entries.values()].map(async (entry) => {
        clearTimeout(entry.retryTimer);
        entry.unwatch?.();
        entry.abort?.abort();
        entry.state.status = "closed";
        // Whoever waits for it to come up (a call, the handshake) stops waiting: no timer outlives the close.
        settle(entry);
        await entry.backend.close().catch(() => {});
      }),
    );
  }

  private async connect(entry: Entry, attempt: number): Promise<void> {
    if (this.closed) return;
    const { backend, spec } = entry;
    const abort = new AbortController();
    entry.abort = abort;
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${spec.connectTimeoutMs} ms`)), spec.connectTimeoutMs);
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      await raceAbort(backend.connect(abort.signal), abort.signal);
      const tools = await raceAbort(backend.listTools(abort.signal), abort.signal);
      if (this.closed) return;
      entry.failures = 0;
      entry.state = readyState(entry.state, backend.info(), tools.length, took());
      entry.preloaded = false;
      entry.listed = JSON.stringify(tools);
      entry.logged = undefined;
      this.logs.connectedNow(backend);
      this.emit(entry, tools);
      settle(entry);
      this.options.logger.info(`${backend.namespace}: ready with ${tools.length} tools`);
      this.options.onSettled?.({ ...entry.state });
    } catch (error) {
      await backend.close().catch(() => {});
      if (this.closed) return;
      // Snapshot tools of a backend that did not come up are taken back: they cannot run.
      if (entry.preloaded) {
        entry.preloaded = false;
        entry.state = { ...entry.state, fromSnapshot: undefined };
        this.emit(entry, []);
      }
      const code = error instanceof BackendError ? error.code : undefined;
      if (code === "needs_login") this.waitForSignIn(entry, errorMessage(error), took());
      else {
        const message = errorMessage(error);
        const reason = message.startsWith(backend.namespace) ? message : `${backend.namespace}: ${message}`;
        const fix = error instanceof BackendError ? error.details.fix : undefined;
        // A config entry that cannot be used is not retried: nothing changes until a person edits it and restarts.
        const status = code === "needs_config" ? "needs_config" : "failed";
        entry.state = failedState(entry.state, status, reason, fix, took());
        logOnce(entry, this.options.logger, status === "failed" ? "error" : "warn", fix ? `${reason} (fix: ${fix})` : reason);
        if (status === "failed") this.scheduleRetry(entry, attempt + 1);
      }
      settle(entry);
      this.options.onSettled?.({ ...entry.state });
    } finally {
      clearTimeout(timer);
    }
  }

  private async refresh(entry: Entry): Promise<void> {
    if (this.closed || entry.state.status !== "ready") return;
    try {
      const tools = await entry.backend.listTools();
      // Servers announce a change at start, or for nothing: only a list that differs is re-indexed and logged.
      const listed = JSON.stringify(tools);
      if (listed === entry.listed) {
        this.options.logger.debug(`${entry.backend.namespace}: tool list announced as changed, and unchanged (${tools.length} tools)`);
        return;
      }
      entry.listed = listed;
      entry.state = { ...entry.state, toolCount: tools.length };
      this.emit(entry, tools);
      this.options.logger.info(`${entry.backend.namespace}: tool list changed, now ${tools.length} tools`);
    } catch (error) {
      this.options.logger.warn(`${entry.backend.namespace}: could not list tools after a change: ${errorMessage(error)}`);
    }
  }

  /** A ready backend whose sign-in stopped working: its tools go until a person signs in again. */
  private async onNeedsLogin(entry: Entry, message: string): Promise<void> {
    if (this.closed || entry.state.status !== "ready") return;
    entry.state = { ...entry.state, status: "needs_login" };
    this.emit(entry, []);
    await entry.backend.close().catch(() => {});
    // The manager may have closed while the backend did: nothing is left to wait for.
    if (!this.closed) this.waitForSignIn(entry, message, entry.state.connectedInMs);
  }

  private waitForSignIn(entry: Entry, message: string, connectedInMs: number | undefined): void {
    awaitSignIn(entry, message, connectedInMs, {
      breakerMs: this.retry.breakerMs,
      logger: this.options.logger,
      reconnect: () => void (this.closed || this.connect(entry, 0)),
    });
  }

  private onDisconnected(entry: Entry, error: Error | undefined): void {
    if (this.closed || entry.state.status !== "ready") return;
    const reason = `${entry.backend.namespace}: disconnected${error ? `: ${error.message}` : ""}`;
    this.options.logger.warn(`${reason}; reconnecting`);
    entry.state = { ...entry.state, status: "reconnecting", error: reason, toolCount: 0 };
    this.emit(entry, []);
    this.scheduleRetry(entry, 1);
  }

  /**
   * The next attempt: along the backoff while it lasts; then the circuit
   * opens and the backend stays "failed", tried once per breaker period,
   * with the time of the next try in its state so errors can say when.
   */
  private scheduleRetry(entry: Entry, attempt: number): void {
    if (this.closed) return;
    entry.failures = attempt - 1;
    const { delayMs: delay, open } = this.retry.next(attempt);
    const retryAt = new Date(Date.now() + delay).toISOString();
    if (open) {
      const why = entry.state.error ? `${entry.state.error}; ` : "";
      entry.state = { ...entry.state, status: "failed", retryAt, error: `${why}circuit open after ${entry.failures} failed attempts: next try at ${retryAt}` };
      this.options.logger.error(`${entry.backend.namespace}: circuit open after ${entry.failures} failed attempts; next try at ${retryAt}`);
    } else entry.state = { ...entry.state, status: "reconnecting", retryAt };
    entry.retryTimer = setTimeout(() => void this.connect(entry, attempt), delay);
    entry.retryTimer.unref();
  }

  private emit(entry: Entry, tools: UpstreamTool[]): void {
    for (const listener of this.listeners) listener(entry.backend.namespace, tools, entry.state.info, entry.backend.runnable);
  }
}
