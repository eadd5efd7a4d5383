/**
 * What agents are told of backends that cannot serve: compact, the same
 * words in search's `unavailable` and run_tool's errors, and whether a
 * person must act (needs_config, needs_login, a program not on PATH) or
 * metatools is retrying on its own (with when, and the call to retry).
 */
import type { MetaServices } from "./services.js";
import { loginCommand } from "../auth/open.js";
import type { NextCall } from "../disclosure/guidance.js";
import type { BackendState } from "../backends/manager.js";
import { errorWithoutName, needsPerson, shownStatus } from "../backends/status.js";
import { lastLines } from "../util/text-tail.js";
import type { UnavailableBackend } from "./reply.js";

const MAX_LISTED = 5;
/** An error's last whole lines within this many characters: its end says why (a stderr tail ends with the cause); doctor shows it all. */
const ERROR_CHARS = 300;

/**
 * Backends whose tools are missing from results right now, and why.
 * `retry(namespace)`: the call to make again once a backend that is
 * retrying comes back; none is given for one only a person can bring back.
 */
export function unavailableBackends(services: MetaServices, retry?: (namespace: string) => NextCall): UnavailableBackend[] {
  // A backend whose tools are served from the snapshot while it starts (or that this command left idle) has its tools in results.
  const down = services.backends.states().filter((s) => s.status !== "ready" && !s.fromSnapshot);
  const listed: UnavailableBackend[] = down.slice(0, MAX_LISTED).map((s) => {
    const status = shownStatus(s);
    const error = errorWithoutName(s);
    const fix = personsFix(s, services);
    return {
      namespace: s.namespace,
      status,
      ...(error ? { error: lastLines(error, ERROR_CHARS) } : {}),
      // A person's step, whole: the error above may be cut.
      ...(fix ? { fix } : {}),
      ...(s.retryAt && !fix ? { retry_at: s.retryAt } : {}),
      // Not `next`: guidance and its call sit at the top of a reply only (the envelope); this is one backend's own retry.
      ...(retry && !fix ? { retry: retry(s.namespace) } : {}),
    };
  });
  if (down.length > MAX_LISTED) listed.push({ namespace: `…${down.length - MAX_LISTED} more`, status: "not listed" });
  return listed;
}

/** What each unavailable backend is, in a few words: what a session was last told, to tell it again only when this changes. */
export function unavailableKey(listed: readonly UnavailableBackend[]): string {
  return listed.map((u) => `${u.namespace}=${u.status}`).join(",");
}

/** "a person must …": what only a person can do to bring the backend back; undefined when metatools retries it on its own. */
export function personsFix(state: BackendState, services: Pick<MetaServices, "config">): string | undefined {
  if (!needsPerson(state)) return undefined;
  if (state.status === "needs_login") return `a person signs in: ${loginCommand(state.namespace, services.config)}`;
  return `a person must ${state.fix ?? "correct its entry in the config"}${state.status === "needs_config" ? "" : " (retries cannot help until then)"}`;
}

/** "at 2026-…Z (in 12 s)": when a backend is tried again. */
export function retryWords(retryAt: string): string {
  const seconds = Math.max(0, Math.ceil((Date.parse(retryAt) - Date.now()) / 1000));
  return `${retryAt} (in ${seconds < 120 ? `${seconds} s` : `${Math.round(seconds / 60)} min`})`;
}
