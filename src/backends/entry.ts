/**
 * One backend as the manager (manager.ts) keeps it, and what is done to an
 * entry without the rest of the manager: waiting for its connect attempt to
 * end, logging its failures once, waiting for a person to sign in.
 */
import type { BackendSpec } from "../config/resolved.js";
import type { Logger } from "../util/log.js";
import type { BackendState } from "./state.js";
import type { Backend } from "./types.js";

export interface Entry {
  backend: Backend;
  spec: Pick<BackendSpec, "namespace" | "connectTimeoutMs" | "callTimeoutMs">;
  state: BackendState;
  abort?: AbortController;
  retryTimer?: NodeJS.Timeout;
  /** Consecutive failed connects (a ready connection resets it). */
  failures: number;
  /** While waiting for a sign-in: stops watching for it. */
  unwatch?: () => void;
  /** Tools given from the snapshot before the backend connected: taken back if it fails. */
  preloaded?: boolean;
  /** Called when a connect attempt ends, either way. */
  settled: Set<() => void>;
  /** The tool list as last listed (JSON), to tell a real change from an announcement of none. */
  listed?: string;
  /** The failure last logged: the same one again (each retry) is logged at debug level only. */
  logged?: string;
}

/** Settles when the entry's current connect attempt ends (ready or not), or `signal` aborts, or its connect timeout passes. */
export function attemptEnded(entry: Entry, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      entry.settled.delete(done);
      resolve();
    };
    const timer = setTimeout(done, entry.spec.connectTimeoutMs);
    signal?.addEventListener("abort", done, { once: true });
    entry.settled.add(done);
  });
}

/** Wakes whoever waits for the entry's attempt to end. */
export function settle(entry: Entry): void {
  for (const done of [...entry.settled]) done();
}

/** Settles when every entry in `waiting` still connecting has ended its attempt, or after `ms`. */
export async function attemptsEnded(waiting: readonly Entry[], ms: number): Promise<void> {
  if (!waiting.length) return;
  let timer: NodeJS.Timeout | undefined;
  const connected = Promise.all(waiting.map((entry) => (entry.state.status === "connecting" ? attemptEnded(entry) : undefined)));
  await Promise.race([connected, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** A failure is logged once, and again only when it changes: a backend retried every few seconds does not repeat itself. */
export function logOnce(entry: Entry, logger: Logger, level: "warn" | "error", message: string): void {
  const known = entry.logged === message;
  entry.logged = message;
  if (known) logger.debug(`${message} (again)`);
  else logger[level](message);
}

/**
 * No retries on a timer: nothing changes until a person signs in. The
 * backend connects (`reconnect`) as soon as its stored sign-in changes, and
 * once per `breakerMs` in case the server stopped asking.
 */
export function awaitSignIn(
  entry: Entry,
  message: string,
  connectedInMs: number | undefined,
  options: { breakerMs: number; logger: Logger; reconnect: () => void },
): void {
  clearTimeout(entry.retryTimer);
  entry.unwatch?.();
  const retryAt = new Date(Date.now() + options.breakerMs).toISOString();
  entry.state = { ...entry.state, status: "needs_login", error: message, toolCount: 0, retryAt, ...(connectedInMs === undefined ? {} : { connectedInMs }) };
  logOnce(entry, options.logger, "warn", message);
  const again = () => {
    entry.unwatch?.();
    entry.unwatch = undefined;
    clearTimeout(entry.retryTimer);
    options.reconnect();
  };
  entry.unwatch = entry.backend.watchSignIn?.(again);
  entry.retryTimer = setTimeout(again, options.breakerMs);
  entry.retryTimer.unref();
}

/** The state of a backend that connected and listed `toolCount` tools in `connectedInMs`: whatever it failed with before is gone. */
export function readyState(state: BackendState, info: BackendState["info"], toolCount: number, connectedInMs: number): BackendState {
  return {
    ...state,
    status: "ready",
    error: undefined,
    retryAt: undefined,
    info,
    toolCount,
    connectedInMs,
    fromSnapshot: undefined,
    fix: undefined,
    failedAt: undefined,
  };
}

/** The state of a backend whose connect failed (or whose entry cannot be used, `needs_config`), saying why and, when known, the fix. */
export function failedState(
  state: BackendState,
  status: "failed" | "needs_config",
  error: string,
  fix: string | undefined,
  connectedInMs: number,
): BackendState {
  return { ...state, status, error, fix, failedAt: new Date().toISOString(), retryAt: undefined, toolCount: 0, connectedInMs };
}
