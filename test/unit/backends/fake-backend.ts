/**
 * Test doubles for the backend manager's unit tests: a scripted upstream server
 * implementing the real `Backend` interface (each connect() follows the next step
 * of its script), a logger that keeps what it is told, and the fake clock's origin.
 */
import { vi } from "vitest";
import { BackendError } from "../../../src/backends/errors.js";
import type { Backend, BackendEvent, BackendInfo, ToolCallResult } from "../../../src/backends/types.js";
import type { UpstreamTool } from "../../../src/model/tool.js";
import type { Logger } from "../../../src/util/log.js";

/** What one connect() does: succeed, fail with a plain error, ask for a sign-in, never answer, or throw this error. */
export type Step = "ok" | "fail" | "login" | "hang" | Error;

/** The fake clock starts here; times in the tests are milliseconds after it. */
export const T0 = Date.UTC(2030, 0, 1);
export const at = (ms: number): string => new Date(T0 + ms).toISOString();
export const now = (): number => Date.now() - T0;

export function useClock(): void {
  vi.useFakeTimers({ now: T0 });
}

export const TOOLS: UpstreamTool[] = [{ name: "alpha" }, { name: "beta" }];

export class ScriptedBackend implements Backend {
  readonly kind = "stdio" as const;
  readonly runnable = true;
  /** When each connect() was called (ms after T0). */
  readonly connects: number[] = [];
  /** The signal each connect() was given. */
  readonly signals: AbortSignal[] = [];
  closes = 0;
  /** Resolves close(); replace it to hold a close() open. */
  closing: () => Promise<void> = () => Promise.resolve();
  /** Called at the start of each connect(), e.g. to read the manager's state then. */
  probe?: () => void;
  /** Set by watchSignIn while the manager waits for a sign-in. */
  signInListener: (() => void) | undefined;
  watches = 0;
  unwatches = 0;
  private listener: ((event: BackendEvent) => void) | undefined;

  constructor(
    readonly namespace: string,
    readonly script: Step[],
    /** The step once the script runs out. */
    private readonly then: Step = "ok",
  ) {}

  async connect(signal: AbortSignal): Promise<void> {
    this.connects.push(now());
    this.signals.push(signal);
    this.probe?.();
    const step = this.script.shift() ?? this.then;
    const n = this.connects.length;
    if (step instanceof Error) throw step;
    if (step === "fail") throw new Error(`refused #${n}`);
    if (step === "login") throw new BackendError("needs_login", `${this.namespace} needs a sign-in (#${n})`);
    if (step === "hang") await new Promise<never>(() => {});
  }

  info(): BackendInfo {
    return { name: `${this.namespace}-server`, version: "1.0.0" };
  }

  async listTools(): Promise<UpstreamTool[]> {
    return TOOLS;
  }

  async callTool(): Promise<ToolCallResult> {
    throw new Error("not called by these tests");
  }

  watchSignIn(listener: () => void): () => void {
    this.watches++;
    this.signInListener = listener;
    return () => {
      this.unwatches++;
      this.signInListener = undefined;
    };
  }

  onEvent(listener: (event: BackendEvent) => void): void {
    this.listener = listener;
  }

  /** The upstream side says something: a drop, a sign-in refused, a list change. */
  emit(event: BackendEvent): void {
    if (!this.listener) throw new Error("the manager set no listener");
    this.listener(event);
  }

  close(): Promise<void> {
    this.closes++;
    return this.closing();
  }
}

export interface RecordingLogger extends Logger {
  lines: string[];
}

export function recordingLogger(): RecordingLogger {
  const lines: string[] = [];
  return {
    lines,
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

/** The spec fields the manager reads; the connect timeout is long enough not to interfere unless a test wants it. */
export const spec = (namespace: string, connectTimeoutMs = 60_000) => ({ namespace, connectTimeoutMs, callTimeoutMs: 30_000 });
