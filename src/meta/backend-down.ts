/**
 * run_tool's (and describe_tool's) answer for a tool whose backend cannot serve now. Given at
 * once for a backend known to fail (no wait on its next attempt), with no
 * unrelated tools suggested, saying either what a person must fix (and
 * that retrying cannot help) or when metatools tries it again, with the
 * call to make then.
 */
import { loginCommand } from "../auth/open.js";
import type { BackendState } from "../backends/manager.js";
import { errorWithoutName, shownStatus } from "../backends/status.js";
import { formatCall, hint, recoverable, warning, type NextCall, type Refusal } from "../disclosure/guidance.js";
import { lastLines } from "../util/text-tail.js";
import type { MetaServices } from "./services.js";
import { personsFix, retryWords } from "./status.js";

/** How much of the backend's error the reply quotes: its end, in whole lines (doctor shows it all). */
const ERROR_CHARS = 600;

/** `retry`: this very call, to make again once the backend is back. */
export function backendDown(
  services: Pick<MetaServices, "config">,
  toolId: string,
  namespace: string,
  state: BackendState | undefined,
  retry: NextCall,
): Refusal {
  if (!state)
    return recoverable(
      "backend_unavailable",
      `${toolId} is not available now: backend "${namespace}" is not connected.`,
      hint(`Retry: ${formatCall(retry)}`, retry),
    );
  const status = shownStatus(state);
  const error = errorWithoutName(state);
  const message = `${toolId} is not available now: its backend "${namespace}" is ${status}${error ? `: ${lastLines(error, ERROR_CHARS)}` : ""}`;
  if (state.status === "needs_login") {
    return recoverable(
      "needs_login",
      message,
      warning(
        `A person must sign in first, in a terminal: ${loginCommand(namespace, services.config)}. The running server picks the sign-in up without a restart; then retry: ${formatCall(retry)}`,
      ),
    );
  }
  const fix = personsFix(state, services);
  // Only a person can bring it back: said, with no call to retry (it would fail the same way).
  if (fix)
    return recoverable(
      state.status === "needs_config" ? "needs_config" : "backend_unavailable",
      message,
      warning(`Not retryable: ${fix}. Use other tools meanwhile.`),
    );
  if (status === "connecting" || status === "reconnecting")
    return recoverable("backend_unavailable", message, hint(`It is ${status}; retry in a few seconds: ${formatCall(retry)}`, retry));
  const when = state.retryAt ? `metatools tries it again at ${retryWords(state.retryAt)}` : "metatools tries it again";
  return recoverable(
    "backend_unavailable",
    message,
    hint(
      `Retrying: ${when}; then run this call again: ${formatCall(retry)}. If it keeps failing, a person should check its entry in the config (metatools doctor shows why).`,
      retry,
    ),
  );
}
