/**
 * What the backend manager (manager.ts) says about each backend, and how
 * it is set up: the states a backend goes through, the listener for its
 * tools, the manager's options.
 */
import type { UpstreamTool } from "../model/tool.js";
import type { Logger } from "../util/log.js";
import type { Redact } from "../util/redact.js";
import type { Backend, BackendInfo } from "./types.js";

/**
 * needs_login: the server asks for a sign-in only a person can give (`metatools auth login`); it connects as soon as one is stored.
 * needs_config: its config entry cannot be used as written (a `${VAR}` not set, a bad field): never started; a person fixes the entry (`fix`) and restarts.
 * idle: not started by this command (a CLI command that answers from the snapshot).
 */
export type BackendStatus = "idle" | "connecting" | "ready" | "failed" | "reconnecting" | "needs_login" | "needs_config" | "closed";

export interface BackendState {
  namespace: string;
  kind: Backend["kind"];
  status: BackendStatus;
  /** Why it failed or dropped, naming the backend and, for stdio, its stderr tail. */
  error?: string;
  /** What a person must do when retrying cannot help (a config entry to correct, a program not on PATH); undefined when it may come back by itself. */
  fix?: string;
  /** When its last connect attempt failed (ISO time), until it is ready again: a call does not wait for a backend known to fail. */
  failedAt?: string;
  info?: BackendInfo;
  toolCount: number;
  runnable: boolean;
  /** When the next connect attempt is due (ISO time), while not ready. */
  retryAt?: string;
  /** How long the last connect attempt took, to ready (connect and first tools/list) or to failure. */
  connectedInMs?: number;
  /** Its tools are served from the snapshot (its last list) while it starts, or while this command leaves it idle. */
  fromSnapshot?: boolean;
}

/** Called whenever a backend's tool list is (re)loaded or emptied. */
/** A backend's tools, as listed (or from its snapshot); `runnable` false for catalog-only tool lists. */
export type ToolsListener = (namespace: string, tools: UpstreamTool[], info: BackendInfo | undefined, runnable: boolean) => void;

export interface ManagerOptions {
  logger: Logger;
  /**
   * Delays between reconnect attempts. Default: exponential from 1 s to 16 s
   * (5 attempts), each with ±25% jitter so many metatools do not retry a
   * shared backend in step. A list given here is used as is (tests).
   */
  backoffMs?: number[];
  /** After the attempts run out the circuit opens: one attempt per this long, said in the backend's state. Default 300000. */
  breakerMs?: number;
  /** Jitter source, for tests. */
  random?: () => number;
  /** Applied to everything each backend says, as it arrives (RedactingBackend). Default: nothing is redacted. */
  redact?: Redact;
  /** Told the state each connect attempt ends in (ready, failed, needs_config, needs_login): what the app remembers of failures. */
  onSettled?: (state: BackendState) => void;
}
