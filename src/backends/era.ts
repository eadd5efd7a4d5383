/**
 * Which era of MCP a backend speaks, found once and remembered: the first
 * connect asks (`server/discover`, falling back to `initialize`), what it
 * learnt lets later connects skip the question, and a first connect that
 * failed because of the question is retried the way that fits.
 */
import { ProtocolError, SdkError, SdkErrorCode, type Client, type PriorDiscovery } from "@modelcontextprotocol/client";

/** The era a server answered with, for the next connect to it to skip the probe. */
export function priorOf(client: Client): PriorDiscovery | undefined {
  if (client.getProtocolEra() === "legacy") return { kind: "legacy" };
  const discover = client.getDiscoverResult();
  return discover ? { kind: "modern", discover } : undefined;
}

/**
 * What to try after a connect failed, or undefined: nothing to retry. A
 * 2025 server that drops the connection on the unknown `server/discover`
 * (some exit on any request before `initialize`) spent its transport: a
 * fresh one goes straight to `initialize`. A server taken for a 2025 one
 * (it did not answer the probe in time over stdio, or it was one when last
 * listed) that refuses `initialize` as 2026-07-28-only (-32022) is probed
 * again, given the whole connect timeout. `prior`: what the failed connect assumed.
 */
export function retryAfterProbe(error: unknown, prior: PriorDiscovery | undefined): { prior?: PriorDiscovery; patientProbe?: boolean } | undefined {
  if (prior?.kind === "modern") return undefined;
  if (!prior && isSdkError(error, SdkErrorCode.EraNegotiationFailed) && /closed during the server\/discover probe/.test(error.message))
    return { prior: { kind: "legacy" } };
  if (refusesLegacy(error)) return { patientProbe: true };
  return undefined;
}

/** A 2026-07-28-only server's refusal of `initialize` (over HTTP, inside the SDK's error for the POST). */
function refusesLegacy(error: unknown): boolean {
  if (error instanceof ProtocolError) return error.code === UNSUPPORTED_PROTOCOL_VERSION;
  return error instanceof Error && /"code":\s*-32022\b/.test(error.message);
}

export function isSdkError(error: unknown, code: SdkErrorCode): error is SdkError {
  return error instanceof SdkError && error.code === code;
}

/** How long the era probe (`server/discover`) waits: a few seconds, never more than the connect timeout. Over stdio silence means a 2025 server. */
export function probeTimeoutMs(connectTimeoutMs: number): number {
  return Math.min(connectTimeoutMs, Math.max(2000, Math.min(5000, Math.floor(connectTimeoutMs / 4))));
}

/** JSON-RPC's "Unsupported protocol version" (2026-07-28). */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/** The most pages one listing may have. */
export const MAX_LIST_PAGES = 1000;
