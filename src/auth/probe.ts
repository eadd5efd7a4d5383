/**
 * The first requests of a sign-in: what the backend's 401 says (where its
 * protected resource metadata is, the scope it wants), or that it answered
 * without asking for one. Sent as an MCP client would send them, redirects
 * not followed: `initialize`, and when a server lets the handshake through
 * without a token, the request a client sends next (`tools/list`), which
 * is where such a server asks.
 */
import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { TRANSPORT_KINDS } from "../model/transport-kinds.js";
import { MetatoolsError } from "../util/errors.js";
import { packageVersion } from "../util/version.js";
import type { SignInSpec } from "../config/resolved.js";

/** The revision the probe speaks: every server that signs in understands its handshake. */
const PROTOCOL_VERSION = "2025-06-18";

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
          params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "metatools", version: packageVersion() } },
        }),
      };
  const first = await send(spec, fetchFn, init);
  if (viaStream || (first.status !== 200 && first.status !== 202)) return outcome(spec, first);
  // The handshake went through unsigned: a server may still ask at the next request, as a client's would be.
  const session = first.headers.get("mcp-session-id");
  const next = { ...headers, "mcp-protocol-version": PROTOCOL_VERSION, ...(session ? { "mcp-session-id": session } : {}) };
  await send(spec, fetchFn, { method: "POST", headers: next, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) }).catch(
    () => undefined,
  );
  const listed = await send(spec, fetchFn, {
    method: "POST",
    headers: next,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  return listed.status === 401 ? outcome(spec, listed) : undefined;
}

/** One request, its body dropped (only the status and headers count). */
async function send(spec: SignInSpec, fetchFn: FetchLike, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    // Not followed: the configured headers are for this server only, and a sign-in page at the end of a redirect is no answer.
    response = await fetchFn(spec.url, { ...init, redirect: "manual" });
  } catch (error) {
    throw new MetatoolsError("signin_failed", `${spec.namespace}: ${spec.url} cannot be reached: ${(error as Error).message}`);
  }
  await response.body?.cancel().catch(() => {});
  return response;
}

/** What a response says of a sign-in: its 401's challenge, none needed, or why it cannot be told. */
function outcome(spec: SignInSpec, response: Response): { resourceMetadataUrl?: URL; scope?: string } | undefined {
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
