/**
 * What a backend's failed connection or call means, in the words an agent
 * or a person is told: a sign-in it needs, an answer too large for the
 * transport, an error before the close.
 */
import { ProtocolError, SdkErrorCode } from "@modelcontextprotocol/client";
import { NeedsLoginError } from "../auth/signer.js";
import { theirsText } from "../security/outside.js";
import { errorMessage } from "../util/errors.js";
import { isSdkError } from "./era.js";
import { BackendError } from "./errors.js";

/** What a failed `tools/call` becomes; `closed` explains a connection that closed under it. */
export function callFailure(error: unknown, call: { what: string; timeoutMs: number; aborted: boolean; closed: () => string }): BackendError {
  // First: the SDK rejects an aborted request as a timeout too.
  if (call.aborted) return new BackendError("cancelled", `${call.what} was cancelled`);
  if (isSdkError(error, SdkErrorCode.RequestTimeout)) return new BackendError("timeout", `${call.what} did not answer within ${call.timeoutMs} ms`);
  const login = needsLogin(error);
  if (login) return new BackendError("needs_login", login.message);
  if (isSdkError(error, SdkErrorCode.ConnectionClosed)) return new BackendError("backend_down", call.closed());
  // The backend's own words, said to be: shown with its controls visible, after a sentence that names whose they are.
  if (error instanceof ProtocolError)
    return new BackendError(
      "upstream_error",
      `${call.what} answered with an error (JSON-RPC ${error.code}), in its words: ${theirsText(ownWords(error.message))}`,
      {
        upstreamCode: error.code,
      },
    );
  return new BackendError("upstream_error", errorMessage(error));
}

/** A JSON-RPC error's message without the SDK's `MCP error -32603: ` before it: that part is the SDK's, the rest the backend's. */
function ownWords(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

/** The sign-in refusal behind an error, however the SDK wrapped it. */
export function needsLogin(error: unknown): NeedsLoginError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof NeedsLoginError) return e;
  return undefined;
}

/** Why a connection closed, in the agent's terms, from the transport's last error. */
export function explainTransportError(messages: readonly string[]): string {
  const capped = messages.find((m) => m.includes(OVERSIZED));
  if (capped) return `: ${capped.slice(capped.indexOf(OVERSIZED))}. The backend is reconnected`;
  const oversized = messages.map((m) => /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(m)).find(Boolean);
  const message = messages[0];
  if (oversized)
    return `: its answer was larger than ${Math.round(Number(oversized[1]) / 2 ** 20)} MiB, the most one MCP stdio message may be; ask for less (a smaller page, range or limit). The backend is restarted`;
  return message ? ` after an error: ${message}` : "";
}

/** The start of cappedFetch's error (capped-fetch.ts), however the SDK wraps it. */
export const OVERSIZED = "the answer was larger than";
