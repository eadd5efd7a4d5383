/**
 * The first request of a sign-in: what the backend's 401 says (where its
 * protected resource metadata is, the scope it wants), or that it answered
 * without asking for one. Sent as an MCP client would send its first
 * message, redirects not followed.
 */
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { TRANSPORT_KINDS } from "../model/transport-kinds.js";
import { MetatoolsError } from "../util/errors.js";
import { packageVersion } from "../util/version.js";
import type { SignInSpec } from "../config/resolved.js";

/** What the server's 401 says, or undefined when it answered without asking for a sign-in. */
export async function probe(spec: SignInSpec, fetchFn: FetchLike): Promise<{ resourceMetadataUrl?: URL; scope?: string } | undefined> {
  const viaStream = TRANSPORT_KINDS[spec.kind].probe === "get";
  const headers = {
    ...spec.headers,
    accept: viaStream ? "text/event-stream" : "application/json, text/event-stream",
    "content-type": "application/json",
  };
  const init: RequestInit = viaStream
    ? { method: "GET", headers }
    : {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "metatools", version: packageVersion() } },
        }),
      };
  let response: Response;
  try {
    // Not followed: the configured headers are for this server only, and a sign-in page at the end of a redirect is no answer.
    response = await fetchFn(spec.url, { ...init, redirect: "manual" });
  } catch (error) {
    throw new MetatoolsError("signin_failed", `${spec.namespace}: ${spec.url} cannot be reached: ${(error as Error).message}`);
  }
  await response.body?.cancel().catch(() => {});
  if (response.status === 401) {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(response);
    return { ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
  }
  if (response.status >= 300 && response.status < 400)
    throw new MetatoolsError(
      "signin_failed",
      `${spec.namespace}: ${spec.url} redirects (HTTP ${response.status}${response.headers.get("location") ? ` to ${response.headers.get("location")}` : ""}); put the URL it redirects to in the config`,
    );
  if (response.status < 300) return undefined;
  throw new MetatoolsError("signin_failed", `${spec.namespace}: ${spec.url} answered HTTP ${response.status}, not 401 asking for a sign-in; check the URL`);
}
