/**
 * `/mcp` and `/mcp/<profile>`: the guards (bearer token, profile, body size,
 * rate limit) in order, then by the request's era: a 2026-07-28 request (its
 * envelope in `_meta`) to the SDK's stateless entry, which answers
 * `server/discover` and checks the `Mcp-Method`/`Mcp-Name` headers; a
 * 2025-era one to a session's server, or a one-request server when stateless.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import { createMcpHandler, isLegacyRequest, type AuthInfo } from "@modelcontextprotocol/server";
import type { Metatools } from "../app.js";
import type { servedTools } from "../meta/index.js";
import { ANONYMOUS_PRINCIPAL } from "../security/principal.js";
import { createSessionServer } from "../serving.js";
import type { Logger } from "../util/log.js";
import { readJsonBody, type ParsedBody } from "./body.js";
import type { BearerAuth, Caller, RateLimiter, Refusal } from "./guard.js";
import { profileFor } from "./profile-route.js";
import { refuse } from "./reply.js";
import type { Sessions } from "./sessions.js";

export interface McpEndpoint {
  app: Metatools;
  logger: Logger;
  stateless: boolean;
  auth: BearerAuth;
  limiter: RateLimiter;
  sessions: Sessions;
  tools: ReturnType<typeof servedTools>;
  /** Settles when backends have started, or the startup grace is over: calls wait for it, the handshake and the tool list do not. */
  startup: Promise<unknown>;
  /** True once the service is closing: new requests are refused. */
  closing: () => boolean;
}

/** Who a 2026-07-28 request is for, carried to the entry's server factory as its `authInfo`. */
interface ModernCaller {
  principal: string;
  profile: string | undefined;
}

export function mcpHandler(endpoint: McpEndpoint): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void> {
  const { app, logger, auth, limiter, sessions, tools } = endpoint;
  const http = app.config.http;
  // One entry for every 2026-07-28 request: a server per request, for the caller its authInfo names. 2025-era traffic never reaches it.
  const modern = toNodeHandler(
    createMcpHandler(
      ({ authInfo }) => {
        const caller = authInfo?.extra as ModernCaller | undefined;
        return createSessionServer(app, { logger, tools, principal: caller?.principal, oneRequest: true, profile: caller?.profile, ready: endpoint.startup });
      },
      { legacy: "reject", onerror: (error) => logger.debug(`mcp (2026-07-28): ${error.message}`), maxRequestBodySize: http.maxBodyBytes },
    ),
    { onerror: (error) => logger.warn(`mcp (2026-07-28): ${error.message}`), maxRequestBodySize: http.maxBodyBytes },
  );
  return async (req, res, path) => {
    const caller: Caller | Refusal = auth.enabled
      ? auth.check(req.headers.authorization)
      : { key: `address:${req.socket.remoteAddress ?? "?"}`, principal: ANONYMOUS_PRINCIPAL };
    if ("status" in caller) return refuse(res, caller);
    const chosen = profileFor(app.profiles, caller, path);
    if (typeof chosen !== "string" && chosen) return refuse(res, chosen);
    const profile = chosen;
    // A session belongs to its token and its profile: the same id under another path is unknown. Its share is the token's, under any profile.
    const token = auth.enabled ? caller.key : "anyone";
    const owner = `${token}|${profile ?? ""}`;
    // A POST's body is read here, under the limit, so a batch is charged per message; GET and DELETE cost one.
    let parsed: ParsedBody | undefined;
    if (req.method === "POST") {
      const read = await readJsonBody(req, http.maxBodyBytes, http.bodyTimeoutMs);
      if ("status" in read) {
        // A client's mistake or an attack, not metatools' fault: said once at warn, no stack.
        if (read.status === 400 && read.code === -32600) logger.warn(`http POST ${path}: refused a body (${caller.key}): ${read.message}`);
        return refuse(res, read);
      }
      parsed = read;
    }
    const limited = limiter.take(caller.key, parsed?.messages ?? 1);
    if (limited) return refuse(res, limited);
    if (endpoint.closing()) return refuse(res, { status: 503, message: "the server is shutting down" });
    if (parsed && !(await isLegacyRequest(await toWebRequest(req, parsed.body), parsed.body))) {
      const info: AuthInfo = { token: "", clientId: caller.principal, scopes: [], extra: { principal: caller.principal, profile } satisfies ModernCaller };
      (req as IncomingMessage & { auth?: AuthInfo }).auth = info;
      return modern(req, res, parsed.body);
    }
    if (endpoint.stateless) {
      // A 2025-11-25 client without a session cannot be told later what its instructions could not name yet: its handshake waits for the backends (up to the grace).
      await endpoint.startup;
      if (!parsed)
        return refuse(res, { status: 405, message: "stateless mode takes POST only (no sessions, no server-sent event stream)", headers: { Allow: "POST" } });
      return serveOneRequest(endpoint, caller, profile, req, res, parsed);
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id, owner);
      if (!session) return refuse(res, { status: 404, message: `unknown or expired session ${id}; start a new one with initialize` });
      return sessions.serve(session, req, res, parsed?.body);
    }
    if (!parsed) return refuse(res, { status: 400, message: "no mcp-session-id header: start a session with an initialize POST" });
    const full = sessions.refuses(token);
    if (full) return refuse(res, full);
    await sessions.open(
      createSessionServer(app, { logger, tools, principal: caller.principal, profile, ready: endpoint.startup }),
      { owner, token },
      req,
      res,
      parsed.body,
    );
  };
}

/** Stateless: a server and transport for this one request, closed when its response is. */
async function serveOneRequest(
  endpoint: McpEndpoint,
  caller: Caller,
  profile: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedBody,
): Promise<void> {
  const server = createSessionServer(endpoint.app, {
    logger: endpoint.logger,
    tools: endpoint.tools,
    principal: caller.principal,
    oneRequest: true,
    profile,
    ready: endpoint.startup,
  });
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on(
    "close",
    () =>
      void transport
        .close()
        .then(
          () => server.close(),
          () => server.close(),
        )
        .catch(() => {}),
  );
  await server.connect(transport);
  await transport.handleRequest(req, res, parsed.body);
}
