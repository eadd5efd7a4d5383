/**
 * A backend's status as people and agents are told it: one vocabulary for
 * doctor, search's `unavailable` and run_tool's errors.
 */
import type { BackendState, BackendStatus } from "./manager.js";

/**
 * The manager's status, except between retries: it says "reconnecting"
 * there, but an attempt that ended in an error failed, and saying so (with
 * the time of the next try beside it) tells the reader not to wait on it.
 * Waiting for a sign-in stays "needs_login": only a person can end that.
 */
export function shownStatus(state: Pick<BackendState, "status" | "error">): BackendStatus {
  if (state.status === "ready" || state.status === "needs_login") return state.status;
  return state.error ? "failed" : state.status;
}
