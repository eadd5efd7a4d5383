/**
 * A protected MCP server for tests (an OAuth resource server): RFC 9728
 * protected-resource metadata, bearer-token checks against the world's token
 * store (audience and expiry) with RFC 6750 challenges, an HTTP 403
 * insufficient_scope answer for scoped tools, and a stateless Streamable HTTP
 * MCP endpoint at /mcp with the tools echo, whoami and one per scoped tool.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";
import type { RouteHandler } from "./authorization-server.js";
import { readBody, sendJson } from "./http.js";
import type { Grant, TokenStore } from "./store.js";
import type { McpEvent, SpecVersion, WorldEvent } from "./types.js";

export const MCP_PATH = "/mcp";
export const PRM_ROOT_PATH = "/.well-known/oauth-protected-resource";
export const PRM_PATH = `${PRM_ROOT_PATH}${MCP_PATH}`;

export interface ProtectedServerContext {
  index: number;
  /** The MCP endpoint URL, which is also its resource identifier. */
  resource: string;
  spec: SpecVersion;
  prmLocation: "path" | "root";
  /** The PRM URL (undefined in 2025-03-26 mode). */
  prmUrl?: string;
  /** The authorization server named in the PRM. */
  issuer: string;
  challengeScope?: string;
  /** `initialize` and notifications are answered without a token; anything else asks for one. */
  openInitialize?: boolean;
  scopesSupported?: string[];
  toolScopes: Record<string, string>;
  tokens: TokenStore;
  record(event: WorldEvent): void;
}

/** `Bearer k="v", …`, dropping undefined parameters. */
function bearer(params: [string, string | undefined][]): string {
  const present = params.filter((p): p is [string, string] => p[1] !== undefined);
  return present.length ? `Bearer ${present.map(([k, v]) => `${k}="${v}"`).join(", ")}` : "Bearer";
}

/** resource_metadata is named only in 2025-06-18 mode with path-based PRM. */
function metadataParam(ctx: ProtectedServerContext): string | undefined {
  return ctx.spec === "2025-06-18" && ctx.prmLocation === "path" ? ctx.prmUrl : undefined;
}

function unauthorized(ctx: ProtectedServerContext, res: ServerResponse, presented: boolean): void {
  const header =
    ctx.spec === "2025-03-26"
      ? "Bearer"
      : bearer([
          ["error", presented ? "invalid_token" : undefined],
          ["resource_metadata", metadataParam(ctx)],
          ["scope", ctx.challengeScope],
        ]);
  const description = presented ? "the access token is unknown, expired, or for another resource" : "a bearer token is required";
  sendJson(res, 401, { error: presented ? "invalid_token" : "unauthorized", error_description: description }, { "www-authenticate": header });
}

function insufficientScope(ctx: ProtectedServerContext, res: ServerResponse, needed: string): void {
  const header = bearer([
    ["error", "insufficient_scope"],
    ["scope", needed],
    ["resource_metadata", metadataParam(ctx)],
  ]);
  sendJson(res, 403, { error: "insufficient_scope", error_description: `this call needs scope ${needed}` }, { "www-authenticate": header });
}

function protectedResourceMetadata(ctx: ProtectedServerContext): Record<string, unknown> {
  return {
    resource: ctx.resource,
    authorization_servers: [ctx.issuer],
    bearer_methods_supported: ["header"],
    ...(ctx.scopesSupported ? { scopes_supported: ctx.scopesSupported } : {}),
  };
}

/** The grant of the request's bearer token if it is live and meant for this server. */
function grantFor(ctx: ProtectedServerContext, authorization: string | undefined): Grant | undefined {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization ?? "");
  const grant = match ? ctx.tokens.liveAccessToken(match[1]!) : undefined;
  return grant?.resource === ctx.resource && grant.issuer === ctx.issuer ? grant : undefined;
}

/** JSON-RPC messages of a body (a message or a batch). */
function messages(body: unknown): { method?: unknown; params?: { name?: unknown } }[] {
  const list = Array.isArray(body) ? body : [body];
  return list.filter((m): m is { method?: unknown; params?: { name?: unknown } } => typeof m === "object" && m !== null);
}

/** Every scope the call needs beyond the granted ones, as "granted + required"; undefined when nothing is missing. */
function missingScope(ctx: ProtectedServerContext, tools: string[], grant: Grant): string | undefined {
  const granted = grant.scope.split(" ").filter(Boolean);
  const required = tools.flatMap((t) => (Object.hasOwn(ctx.toolScopes, t) ? [ctx.toolScopes[t]!] : []));
  if (required.every((s) => granted.includes(s))) return undefined;
  return [...new Set([...granted, ...required])].join(" ");
}

function mcpServer(ctx: ProtectedServerContext, authorization: string): McpServer {
  const server = new McpServer({ name: `oauth-test-server-${ctx.index}`, version: "1.0.0" });
  server.registerTool("echo", { description: "Returns the text it is given.", inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool("whoami", { description: "Returns the Authorization header this server received.", inputSchema: {} }, async () => ({
    content: [{ type: "text", text: authorization }],
  }));
  for (const name of Object.keys(ctx.toolScopes)) {
    if (name === "echo" || name === "whoami") continue;
    server.registerTool(
      name,
      { description: `Needs scope ${ctx.toolScopes[name]}. Saves a note.`, inputSchema: { text: z.string().optional() } },
      async () => ({
        content: [{ type: "text", text: "saved" }],
      }),
    );
  }
  return server;
}

async function serveMcp(ctx: ProtectedServerContext, req: IncomingMessage, res: ServerResponse, body: unknown, authorization: string): Promise<void> {
  const server = mcpServer(ctx, authorization);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

function trackEvent(ctx: ProtectedServerContext, req: IncomingMessage, res: ServerResponse, path: string): McpEvent {
  const event: McpEvent = { kind: "mcp", server: ctx.index, method: req.method ?? "", path, status: 0, rpcMethods: [], tools: [] };
  if (req.headers.authorization !== undefined) event.authorization = req.headers.authorization;
  ctx.record(event);
  const settle = () => {
    if (event.status === 0) event.status = res.statusCode;
  };
  res.on("finish", settle);
  res.on("close", settle);
  return event;
}

async function handleMcp(ctx: ProtectedServerContext, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const event = trackEvent(ctx, req, res, path);
  const authorization = req.headers.authorization;
  const grant = grantFor(ctx, authorization);
  if (!grant && !(ctx.openInitialize && req.method === "POST")) return unauthorized(ctx, res, authorization !== undefined);
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req));
  } catch {
    return sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  }
  const list = messages(body);
  event.rpcMethods = list.map((m) => String(m.method));
  if (!grant) {
    // Open for the handshake only: the first request that does anything asks for a sign-in.
    const handshake = list.every((m) => m.method === "initialize" || String(m.method).startsWith("notifications/"));
    if (!handshake) return unauthorized(ctx, res, authorization !== undefined);
    return serveMcp(ctx, req, res, body, "");
  }
  event.tools = list.filter((m) => m.method === "tools/call").map((m) => String(m.params?.name));
  const needed = missingScope(ctx, event.tools, grant);
  if (needed !== undefined) return insufficientScope(ctx, res, needed);
  await serveMcp(ctx, req, res, body, authorization!);
}

/** The routes of one protected MCP server. */
export function protectedMcpServer(ctx: ProtectedServerContext): RouteHandler {
  const prmPath = ctx.spec === "2025-03-26" ? undefined : ctx.prmLocation === "path" ? PRM_PATH : PRM_ROOT_PATH;
  return async (req, res, url) => {
    if (url.pathname === prmPath && req.method === "GET") {
      sendJson(res, 200, protectedResourceMetadata(ctx));
      return true;
    }
    if (url.pathname !== MCP_PATH) return false;
    await handleMcp(ctx, req, res, url.pathname);
    return true;
  };
}
