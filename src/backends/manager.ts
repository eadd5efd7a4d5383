/**
 * Owns the backends' lifecycles: connects them in parallel, each under its
 * own timeout, so a slow or dead backend never holds up the others; lists
 * their tools again on `tools/list_changed`; reconnects a dropped backend
 * with exponential backoff.
 */
import type { BackendSpec } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import type { Backend, BackendInfo } from "./types.js";

export type BackendStatus = "connecting" | "ready" | "failed" | "reconnecting" | "closed";

export interface BackendState {
  namespace: string;
  kind: Backend["kind"];
  status: BackendStatus;
  /** Why it failed or dropped, naming the backend and, for stdio, its stderr tail. */
  error?: string;
  info?: BackendInfo;
  toolCount: number;
  runnable: boolean;
}

/** Called whenever a backend's tool list is (re)loaded or emptied. */
export type ToolsListener = (namespace: string, tools: UpstreamTool[], info: BackendInfo | undefined) => void;

export interface ManagerOptions {
  logger: Logger;
  /** Delays between reconnect attempts; after the last one the backend stays failed. Default 1s, 2s, 4s, 8s, 16s. */
  backoffMs?: number[];
}

interface Entry {
  backend: Backend;
  spec: Pick<BackendSpec, "namespace" | "connectTimeoutMs" | "callTimeoutMs">;
  state: BackendState;
  abort?: AbortController;
  retryTimer?: NodeJS.Timeout;
}

export class BackendManager {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners: ToolsListener[] = [];
  private readonly backoffMs: number[];
  private closed = false;
  private startup: Promise<void> = Promise.resolve();

  constructor(
    backends: { backend: Backend; spec: Entry["spec"] }[],
    private readonly options: ManagerOptions,
  ) {
    this.backoffMs = options.backoffMs ?? [1000, 2000, 4000, 8000, 16000];
    for (const { backend, spec } of backends) {
      const state: BackendState = { namespace: backend.namespace, kind: backend.kind, status: "connecting", toolCount: 0, runnable: backend.runnable };
      const entry: Entry = { backend, spec, state };
      backend.onEvent((event) => {
        if (event.type === "tools_changed") void this.refresh(entry);
        else this.onDisconnected(entry, event.error);
      });
      this.entries.set(backend.namespace, entry);
    }
  }

  onTools(listener: ToolsListener): void {
    this.listeners.push(listener);
  }

  /** Starts every backend at once; the promise settles when each has connected or failed. Never rejects. */
  start(): Promise<void> {
    this.startup = Promise.all([...this.entries.values()].map((entry) => this.connect(entry, 0))).then(() => undefined);
    return this.startup;
  }

  /** Settles when the initial connects are done, or after `ms`, whichever comes first. */
  async waitForStartup(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.startup, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
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
        entry.abort?.abort();
        entry.state.status = "closed";
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
    try {
      await raceAbort(backend.connect(abort.signal), abort.signal);
      const tools = await raceAbort(backend.listTools(abort.signal), abort.signal);
      if (this.closed) return;
      entry.state = { ...entry.state, status: "ready", error: undefined, info: backend.info(), toolCount: tools.length };
      this.emit(entry, tools);
      this.options.logger.info(`${backend.namespace}: ready with ${tools.length} tools`);
    } catch (error) {
      await backend.close().catch(() => {});
      if (this.closed) return;
      const message = errorMessage(error);
      const reason = message.startsWith(backend.namespace) ? message : `${backend.namespace}: ${message}`;
      entry.state = { ...entry.state, status: "failed", error: reason, toolCount: 0 };
      this.options.logger.error(reason);
      this.scheduleRetry(entry, attempt + 1);
    } finally {
      clearTimeout(timer);
    }
  }

  private async refresh(entry: Entry): Promise<void> {
    if (this.closed || entry.state.status !== "ready") return;
    try {
      const tools = await entry.backend.listTools();
      entry.state = { ...entry.state, toolCount: tools.length };
      this.emit(entry, tools);
      this.options.logger.info(`${entry.backend.namespace}: tool list changed, now ${tools.length} tools`);
    } catch (error) {
      this.options.logger.warn(`${entry.backend.namespace}: could not list tools after a change: ${errorMessage(error)}`);
    }
  }

  private onDisconnected(entry: Entry, error: Error | undefined): void {
    if (this.closed || entry.state.status !== "ready") return;
    const reason = `${entry.backend.namespace}: disconnected${error ? `: ${error.message}` : ""}`;
    this.options.logger.warn(`${reason}; reconnecting`);
    entry.state = { ...entry.state, status: "reconnecting", error: reason, toolCount: 0 };
    this.emit(entry, []);
    this.scheduleRetry(entry, 1);
  }

  private scheduleRetry(entry: Entry, attempt: number): void {
    const delay = this.backoffMs[attempt - 1];
    if (delay === undefined || this.closed) return;
    entry.state = { ...entry.state, status: "reconnecting" };
    entry.retryTimer = setTimeout(() => void this.connect(entry, attempt), delay);
    entry.retryTimer.unref();
  }

  private emit(entry: Entry, tools: UpstreamTool[]): void {
    for (const listener of this.listeners) listener(entry.backend.namespace, tools, entry.state.info);
  }
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener("abort", onAbort), resolve(value)),
      (error) => (signal.removeEventListener("abort", onAbort), reject(error)),
    );
  });
}
