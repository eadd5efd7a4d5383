/**
 * MCP over Streamable HTTP on `/mcp`, with `/healthz` and `/readyz`. Every
 * request to `/mcp` passes the guards (Host/Origin, bearer token, rate
 * limit, body size) before the SDK transport sees it. Session-ful by
 * default: one MCP server and transport per session, closed when idle
 * (nothing in flight, no event stream connected; see sessions.ts).
 * Stateless (`--stateless`, for replicas behind a load balancer): one per
 * request, JSON responses, so any replica answers any call; what must be
 * shared (cached results, output handles) lives in the configured store.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Metatools } from "../app.js";
import { servedTools } from "../meta/index.js";
import { scopedFor } from "../meta/scoped.js";
import { ANONYMOUS_PRINCIPAL } from "../security/principal.js";
import { createSessionServer } from "../serving.js";
import { MetatoolsError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { readJsonBody, type ParsedBody } from "./body.js";
import { BearerAuth, checkOrigin, corsHeaders, isLoopback, RateLimiter, type Caller, type Refusal } from "./guard.js";
import { profileFor } from "./profile-route.js";
import { Sessions } from "./sessions.js";

export interface HttpOptions {
  port: number;
  host: string;
  stateless: boolean;
}

export interface HttpService {
  /** Where MCP is served, with the real port when 0 was asked for. */
  url: string;
  /** Stops accepting, lets in-flight requests finish up to the grace period, then closes sessions (answering what is still open with an error) and the app. */
  close(): Promise<void>;
}

export async function serveHttp(app: Metatools, options: HttpOptions, logger: Logger): Promise<HttpService> {
  const http = app.config.http;
  const auth = new BearerAuth(http.tokens, http.tokenProfiles);
  const loopbackBind = isLoopback(options.host);
  const limiter = new RateLimiter(http.rateLimit.perMinute, http.rateLimit.burst);
  const sessions = new Sessions({
    idleMs: http.sessionIdleMs,
    max: http.maxSessions,
    maxPerOwner: auth.enabled ? http.maxSessionsPerToken : http.maxSessions,
    logger,
  });
  let started = false;
  void app.start().then(() => (started = true));
  // As on stdio: the first requests wait for backends up to the startup grace, so the instructions and searches see them.
  const startup = app.backends.waitForStartup(app.config.timeouts.startupGraceMs);
  const inFlight = new Set<Promise<void>>();
  let closing = false;
  const tools = servedTools(app);

  async function mcp(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const caller: Caller | Refusal = auth.enabled
      ? auth.check(req.headers.authorization)
      : { key: `address:${req.socket.remoteAddress ?? "?"}`, principal: ANONYMOUS_PRINCIPAL };
    if ("status" in caller) return refuse(res, caller);
    const chosen = profileFor(app.profiles, caller, path);
    if (typeof chosen !== "string" && chosen) return refuse(res, chosen);
    const profile = chosen;
    // A session belongs to its token and its profile: the same id under another path is unknown.
    const owner = (key: string) => `${auth.enabled ? key : "anyone"}|${profile ?? ""}`;
    // A POST's body is read here, under the limit, so a batch is charged per message; GET and DELETE cost one.
    let parsed: ParsedBody | undefined;
    if (req.method === "POST") {
      const read = await readJsonBody(req, http.maxBodyBytes, http.bodyTimeoutMs);
      if ("status" in read) return refuse(res, read);
      parsed = read;
    }
    const limited = limiter.take(caller.key, parsed?.messages ?? 1);
    if (limited) return refuse(res, limited);
    if (closing) return refuse(res, { status: 503, message: "the server is shutting down" });
    await startup;
    if (options.stateless) {
      if (!parsed)
        return refuse(res, { status: 405, message: "stateless mode takes POST only (no sessions, no server-sent event stream)", headers: { Allow: "POST" } });
      const server = createSessionServer(app, { logger, tools, principal: caller.principal, oneRequest: true, profile });
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
      return;
    }
    const id = req.headers["mcp-session-id"];
    if (typeof id === "string") {
      const session = sessions.get(id, owner(caller.key));
      if (!session) return refuse(res, { status: 404, message: `unknown or expired session ${id}; start a new one with initialize` });
      return sessions.serve(session, req, res, parsed?.body);
    }
    if (!parsed) return refuse(res, { status: 400, message: "no mcp-session-id header: start a session with an initialize POST" });
    const full = sessions.refuses(owner(caller.key));
    if (full) return refuse(res, full);
    await sessions.open(createSessionServer(app, { logger, tools, principal: caller.principal, profile }), owner(caller.key), req, res, parsed.body);
  }

  const server: HttpServer = createServer(requestTimeouts(http.bodyTimeoutMs), (req, res) => {
    // A request target that is no URL (`http://[`) must not throw out of the listener: it reads as a path nothing serves.
    const target = URL.canParse(req.url ?? "/", "http://localhost") ? new URL(req.url ?? "/", "http://localhost") : undefined;
    const path = target?.pathname ?? req.url ?? "";
    void (async () => {
      // Every path: a rebound or foreign page reads nothing, not even health.
      const foreign = checkOrigin(req, { loopbackBind, allowedOrigins: http.allowedOrigins });
      if (foreign) return refuse(res, foreign);
      for (const [name, value] of Object.entries(corsHeaders(req.headers.origin))) res.setHeader(name, value);
      if (req.method === "OPTIONS") return void res.writeHead(204).end();
      if (path === "/healthz") {
        // Only a process started with --expose-gc (the benchmark) can be asked to collect first: live memory, not garbage.
        const gc = (globalThis as { gc?: () => void }).gc;
        if (target?.searchParams.has("gc") && gc) gc();
        const memory = process.memoryUsage();
        return json(res, 200, {
          status: "ok",
          sessions: sessions.size,
          rssMb: Math.round(memory.rss / 2 ** 20),
          heapMb: Math.round(memory.heapUsed / 2 ** 20),
        });
      }
      if (path === "/readyz") return readiness(req, res);
      if (path !== "/mcp" && !path.startsWith("/mcp/")) return refuse(res, { status: 404, message: `nothing at ${path}; MCP is served on /mcp` });
      await mcp(req, res, path);
    })().catch((error: unknown) => {
      logger.error(`http ${req.method} ${path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) refuse(res, { status: 500, message: "internal error; see the server log" });
      else res.destroy();
    });
    // A call is in flight until its response ends (an SSE reply outlives the handler); a GET event stream is no call.
    if (req.method === "POST") {
      const answered = new Promise<void>((resolve) => res.once("close", resolve));
      inFlight.add(answered);
      void answered.then(() => inFlight.delete(answered));
    }
  });

  /**
   * Ready once every backend has connected or failed and the semantic index
   * is built. The backends' names and states go to whoever may call /mcp;
   * their error texts never (they can hold command lines and URLs): those
   * are in the log.
   */
  function readiness(req: IncomingMessage, res: ServerResponse): void {
    const indexing = app.search.semantic?.indexing ?? [];
    const ready = started && !closing && indexing.length === 0;
    const caller = auth.enabled ? auth.check(req.headers.authorization) : undefined;
    if (caller && "status" in caller) return json(res, ready ? 200 : 503, { ready });
    // A token with a profile hears only of the backends its profile shows.
    const seen = scopedFor(app, caller?.profile).backends;
    const backends = seen.states().map(({ namespace, status, toolCount }) => ({ namespace, status, tools: toolCount }));
    const shown = new Set(backends.map((b) => b.namespace));
    json(res, ready ? 200 : 503, { ready, started, indexing: indexing.filter((namespace) => shown.has(namespace)), backends });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new MetatoolsError("listen_failed", `cannot listen on ${options.host}:${options.port}: ${error.message}`)));
    server.listen(options.port, options.host, () => resolve());
  }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  server.on("error", (error) => logger.error(`http server: ${error.message}`));
  const sweeper = setInterval(() => {
    sessions.sweep();
    limiter.sweep();
  }, sessions.sweepEveryMs).unref();
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}/mcp`;
  logger.info(
    `serving MCP on ${url} (${options.stateless ? "stateless" : "sessions"}; ${auth.enabled ? `${http.tokens.length} bearer token(s)` : "no authentication"})`,
  );

  let closed: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closed ??= (async () => {
        closing = true;
        clearInterval(sweeper);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = new Promise<void>((resolve) => setTimeout(resolve, http.shutdownGraceMs).unref());
        await Promise.race([Promise.all(inFlight), grace]);
        await sessions.closeAll();
        server.closeAllConnections();
        await stopped;
        await app.close();
      })()),
  };
}

/**
 * Node's own bounds on receiving a request: its headers within the body
 * timeout, and the whole request within twice that (headers, then body),
 * checked often enough to be felt. readJsonBody answers a slow body itself;
 * these catch slow headers (sent before any token is checked) and anything
 * readJsonBody does not read. Both end once the request is received, so an
 * SSE stream or a long call's streamed response is not cut.
 */
function requestTimeouts(bodyTimeoutMs: number): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  return {
    headersTimeout: bodyTimeoutMs,
    requestTimeout: 2 * bodyTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(bodyTimeoutMs / 4))),
  };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(`${JSON.stringify(body)}\n`);
}

/**
 * A refusal as a JSON-RPC error body, as the SDK's own refusals are, so MCP
 * clients show the message. The connection closes after it: a refused
 * request's body is not read, and must not be.
 */
function refuse(res: ServerResponse, refusal: Refusal): void {
  json(
    res,
    refusal.status,
    { jsonrpc: "2.0", error: { code: refusal.code ?? -32000, message: refusal.message }, id: null },
    { ...refusal.headers, Connection: "close" },
  );
}
