/**
 * A backend's status as people and agents are told it: one vocabulary for
 * doctor, search's `unavailable` and run_tool's errors.
 */
import type { BackendState, BackendStatus } from "./manager.js";

/**
 * The manager's status, except between retries: it says "reconnecting"
 * there, but an attempt that ended in an error failed, and saying so (with
 * the time of the next try beside it) tells the reader not to wait on it.
 * Waiting for a sign-in stays "needs_login", and a config entry that cannot
 * be used "needs_config": only a person can end those.
 */
export function shownStatus(state: Pick<BackendState, "status" | "error">): BackendStatus {
  if (state.status === "ready" || state.status === "needs_login" || state.status === "needs_config") return state.status;
  return state.error ? "failed" : state.status;
}

/** Only a person can bring it back: a sign-in, a config entry to correct, a program to install. Retrying alone does not help. */
export function needsPerson(state: Pick<BackendState, "status" | "fix">): boolean {
  return state.status === "needs_login" || state.status === "needs_config" || (state.status !== "ready" && state.fix !== undefined);
}

/** The error without the backend's name in front: it is shown beside the namespace. */
export function errorWithoutName(state: Pick<BackendState, "namespace" | "error">): string | undefined {
  const prefix = `${state.namespace}: `;
  return state.error?.startsWith(prefix) ? state.error.slice(prefix.length) : state.error;
}
