import type { MetaServices } from "./services.js";
import { loginCommand } from "../auth/open.js";
import { lastLines } from "../util/text-tail.js";
import { shownStatus } from "../backends/status.js";

const MAX_LISTED = 5;
/** An error's last whole lines within this many characters: its end says why (a stderr tail ends with the cause); doctor shows it all. */
const ERROR_CHARS = 300;

/** Backends whose tools are missing from results right now, and why: compact, for any response. */
export function unavailableBackends(services: MetaServices): Record<string, unknown>[] {
  // A backend whose tools are served from the snapshot while it starts (or that this command left idle) has its tools in results.
  const down = services.backends.states().filter((s) => s.status !== "ready" && !s.fromSnapshot);
  const listed: Record<string, unknown>[] = down.slice(0, MAX_LISTED).map((s) => {
    const status = shownStatus(s);
    return {
      namespace: s.namespace,
      status,
      ...(s.error ? { error: lastLines(s.error, ERROR_CHARS) } : {}),
      ...(s.retryAt && status !== "needs_login" ? { retry_at: s.retryAt } : {}),
      // A person's step, whole: the error above may be cut.
      ...(status === "needs_login" ? { fix: `a person signs in: ${loginCommand(s.namespace, services.config)}` } : {}),
    };
  });
  if (down.length > MAX_LISTED) listed.push({ namespace: `…${down.length - MAX_LISTED} more`, status: "not listed" });
  return listed;
}
