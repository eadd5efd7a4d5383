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
import { createServer, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metatools } from "../app.js";
import { servedTools } from "../meta/index.js";
import { MetatoolsError } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { BearerAuth, checkOrigin, corsHeaders, isLoopback, RateLimiter } from "./guard.js";
import { health, readiness } from "./health.js";
import { mcpHandler } from "./mcp-endpoint.js";
import { refuse } from "./reply.js";
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
  const auth = new BearerAuth(http.tokens, http.tokenProfiles, http.tokenNames);
  const limiter = new RateLimiter(http.rateLimit.perMinute, http.rateLimit.burst);
  const sessions = new Sessions({
    idleMs: http.sessionIdleMs,
    max: http.maxSessions,
    maxPerOwner: auth.enabled ? http.maxSessionsPerToken : http.maxSessions,
    logger,
  });
  const phase = { started: false, closing: false };
  void app.start().then(() => (phase.started = true));
  // As on stdio: calls wait for backends up to the startup grace, so searches see them; the handshake and the tool list do not.
  const startup = app.backends.waitForStartup(app.config.timeouts.startupGraceMs);
  const inFlight = new Set<Promise<void>>();
  const mcp = mcpHandler({
    app,
    logger,
    stateless: options.stateless,
    auth,
    limiter,
    sessions,
    tools: servedTools(app),
    startup,
    closing: () => phase.closing,
  });
  const loopbackBind = isLoopback(options.host);

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
      if (path === "/healthz") return health(res, sessions.size, target);
      if (path === "/readyz") return readiness(app, auth, phase, req, res);
      if (path !== "/mcp" && !path.startsWith("/mcp/")) return refuse(res, { status: 404, message: `nothing at ${path}; MCP is served on /mcp` });
      await mcp(req, res, path);
    })().catch((error: unknown) => {
      logger.error(`http ${req.method} ${path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) refuse(res, { status: 500, message: "internal error; see the server log" });
      else res.destroy();
    });
    // A call is in flight until its response ends (an SSE reply outlives the handler); a GET event stream is no call.
    if (req.method === "POST") trackInFlight(inFlight, res);
  });

  await listen(server, options).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  server.on("error", (error) => logger.error(`http server: ${error.message}`));
  const sweeper = setInterval(() => {
    sessions.sweep();
    limiter.sweep();
  }, sessions.sweepEveryMs).unref();
  const url = mcpUrl(server.address() as AddressInfo);
  logger.info(
    `serving MCP on ${url} (${options.stateless ? "stateless" : "sessions"}; ${auth.enabled ? `${http.tokens.length} bearer token(s)` : "no authentication"})`,
  );

  let closed: Promise<void> | undefined;
  return {
    url,
    close: () =>
      (closed ??= (async () => {
        phase.closing = true;
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

/** Keeps `res` in `inFlight` until it closes. */
function trackInFlight(inFlight: Set<Promise<void>>, res: ServerResponse): void {
  const answered = new Promise<void>((resolve) => res.once("close", resolve));
  inFlight.add(answered);
  void answered.then(() => inFlight.delete(answered));
}

/** Rejects with `listen_failed` when the address cannot be bound. */
function listen(server: HttpServer, options: HttpOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new MetatoolsError("listen_failed", `cannot listen on ${options.host}:${options.port}: ${error.message}`)));
    server.listen(options.port, options.host, () => resolve());
  });
}

function mcpUrl(address: AddressInfo): string {
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/mcp`;
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
