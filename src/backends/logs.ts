/**
 * Backends' log messages (`notifications/message`): passed to whoever
 * listens (the client log), and the level every backend is asked to log
 * at, applied to each as it connects.
 */
import type { LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { Backend, BackendLog } from "./types.js";

export class BackendLogs {
  private readonly listeners: ((namespace: string, log: BackendLog) => void)[] = [];
  private level: LoggingLevel | undefined;
  /** Every backend that connected: a new level goes to each (one not connected now ignores it, and gets it when it connects). */
  private readonly connected = new Set<Backend>();

  onLog(listener: (namespace: string, log: BackendLog) => void): void {
    this.listeners.push(listener);
  }

  publish(namespace: string, log: BackendLog): void {
    for (const listener of this.listeners) listener(namespace, log);
  }

  /** Asks every backend to log at `level`, now and whenever one connects. */
  setLevel(level: LoggingLevel): void {
    this.level = level;
    for (const backend of this.connected) this.ask(backend);
  }

  /** A backend just connected: it gets the level asked for. */
  connectedNow(backend: Backend): void {
    this.connected.add(backend);
    this.ask(backend);
  }

  private ask(backend: Backend): void {
    if (this.level) void backend.setLogLevel?.(this.level).catch(() => {});
  }
}
