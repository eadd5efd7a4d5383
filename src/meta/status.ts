import type { Metatools } from "../app.js";
import { loginCommand } from "../auth/open.js";

const MAX_LISTED = 5;
const ERROR_CHARS = 200;

/** Backends whose tools are missing from results right now, and why: compact, for any response. */
export function unavailableBackends(app: Metatools): Record<string, unknown>[] {
  const down = app.backends.states().filter((s) => s.status !== "ready");
  const listed: Record<string, unknown>[] = down.slice(0, MAX_LISTED).map((s) => ({
    namespace: s.namespace,
    status: s.status,
    ...(s.error ? { error: s.error.length > ERROR_CHARS ? `${s.error.slice(0, ERROR_CHARS - 1)}…` : s.error } : {}),
    ...(s.retryAt && s.status !== "needs_login" ? { retry_at: s.retryAt } : {}),
    // A person's step, whole: the error above may be cut.
    ...(s.status === "needs_login" ? { fix: `a person signs in: ${loginCommand(s.namespace, app.config)}` } : {}),
  }));
  if (down.length > MAX_LISTED) listed.push({ namespace: `…${down.length - MAX_LISTED} more`, status: "not listed" });
  return listed;
}
