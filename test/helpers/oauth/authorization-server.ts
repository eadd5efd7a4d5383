/**
 * A strict OAuth 2.1 authorization server for tests: RFC 8414 / OpenID
 * metadata, dynamic client registration (RFC 7591), and an auto-approving
 * authorization endpoint (PKCE S256 and RFC 8707 `resource` required, errors
 * per RFC 6749 §4.1.2.1). The token endpoint is in token-endpoint.ts.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ClientRegistry } from "./clients.js";
import { redirectUriMatches } from "./clients.js";
import { mediaType, readBody, redirect, sendJson, sendOAuthError, singleValued } from "./http.js";
import type { CodeStore, TokenStore } from "./store.js";
import { tokenEndpoint } from "./token-endpoint.js";
import { CLIENT_AUTH_METHODS, type IssResponse, type WorldEvent } from "./types.js";

export interface AuthorizationServerContext {
  /** Base URL, no trailing slash: http://127.0.0.1:P */
  issuer: string;
  /** Resources tokens may be requested for. */
  resources: string[];
  /** The audience when /authorize carries no `resource` (2025-03-26 mode only); otherwise `resource` is required. */
  defaultResource?: string;
  dcr: boolean;
  cimd: boolean;
  /** Advertise authorization_response_iss_parameter_supported (RFC 9207). */
  issParameterSupported: boolean;
  /** The `iss` sent back to the client's redirect URI: this server's issuer, another one, or none. */
  issResponse: IssResponse;
  oidcOnly: boolean;
  scopesSupported?: string[];
  clients: ClientRegistry;
  codes: CodeStore;
  tokens: TokenStore;
  record(event: WorldEvent): void;
}

/** Answers the request if its path is one of this server's; returns false otherwise. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function oauthMetadata(ctx: AuthorizationServerContext): Record<string, unknown> {
  return {
    issuer: ctx.issuer,
    authorization_endpoint: `${ctx.issuer}/authorize`,
    token_endpoint: `${ctx.issuer}/token`,
    ...(ctx.dcr ? { registration_endpoint: `${ctx.issuer}/register` } : {}),
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    ...(ctx.issParameterSupported ? { authorization_response_iss_parameter_supported: true } : {}),
    ...(ctx.scopesSupported ? { scopes_supported: ctx.scopesSupported } : {}),
    ...(ctx.cimd ? { client_id_metadata_document_supported: true } : {}),
  };
}

/** OpenID Connect Discovery needs a few more members; this server issues no ID tokens, so its key set is empty. */
function openIdMetadata(ctx: AuthorizationServerContext): Record<string, unknown> {
  return { ...oauthMetadata(ctx), jwks_uri: `${ctx.issuer}/jwks`, subject_types_supported: ["public"], id_token_signing_alg_values_supported: ["RS256"] };
}

/** Space-separated scopes, without duplicates or empty items. */
export function normalizeScope(scope: string | undefined): string {
  return [...new Set((scope ?? "").split(" ").filter(Boolean))].join(" ");
}

async function register(ctx: AuthorizationServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body: unknown;
  try {
    if (mediaType(req) !== "application/json") throw new Error("the body must be application/json");
    body = JSON.parse(await readBody(req));
  } catch (error) {
    ctx.record({ kind: "register", issuer: ctx.issuer, status: 400, request: undefined, error: "invalid_client_metadata" });
    return sendOAuthError(res, 400, "invalid_client_metadata", error instanceof Error ? error.message : String(error));
  }
  const result = ctx.clients.register(body);
  if ("error" in result) {
    ctx.record({ kind: "register", issuer: ctx.issuer, status: 400, request: body, error: result.error });
    return sendOAuthError(res, 400, result.error, result.description);
  }
  const { client_id, token_endpoint_auth_method } = result.client;
  ctx.record({ kind: "register", issuer: ctx.issuer, status: 201, request: body, client_id, token_endpoint_auth_method });
  sendJson(res, 201, result.response);
}

function withParams(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

/** Why an authorization request with a valid client and redirect URI is refused, or undefined when it is fine. */
function authorizeProblem(ctx: AuthorizationServerContext, params: Record<string, string>): [string, string] | undefined {
  if (params.response_type !== "code") return ["unsupported_response_type", 'response_type must be "code"'];
  if (!params.code_challenge) return ["invalid_request", "code_challenge is required (PKCE)"];
  if (params.code_challenge_method !== "S256") return ["invalid_request", "code_challenge_method must be S256"];
  if (!S256_CHALLENGE.test(params.code_challenge)) return ["invalid_request", "code_challenge is not a base64url SHA-256 digest"];
  const resource = params.resource ?? ctx.defaultResource;
  if (resource === undefined) return ["invalid_target", "resource is required (RFC 8707)"];
  if (!ctx.resources.includes(resource)) return ["invalid_target", `unknown resource: ${resource}`];
  return undefined;
}

async function authorize(ctx: AuthorizationServerContext, res: ServerResponse, url: URL): Promise<void> {
  const received = Object.fromEntries(url.searchParams);
  const answer = (status: number, outcome: string) => ctx.record({ kind: "authorize", issuer: ctx.issuer, params: received, outcome, status });
  const params = singleValued(url.searchParams);
  if (!params) {
    answer(400, "invalid_request");
    return sendOAuthError(res, 400, "invalid_request", "a parameter is repeated");
  }
  const client = params.client_id ? await ctx.clients.find(params.client_id) : undefined;
  if (!client) {
    answer(400, "invalid_client");
    return sendOAuthError(res, 400, "invalid_client", "unknown client_id");
  }
  const redirectUri = params.redirect_uri;
  if (!redirectUri || !client.redirect_uris.some((registered) => redirectUriMatches(registered, redirectUri))) {
    answer(400, "invalid_request");
    return sendOAuthError(res, 400, "invalid_request", "redirect_uri is missing or not registered for this client");
  }
  const iss = { issuer: ctx.issuer, wrong: "https://mix-up.attacker.example", missing: undefined }[ctx.issResponse];
  const back = { state: params.state, iss };
  const problem = authorizeProblem(ctx, params);
  if (problem) {
    answer(302, problem[0]);
    return redirect(res, withParams(redirectUri, { error: problem[0], error_description: problem[1], ...back }));
  }
  const code = ctx.codes.create({
    issuer: ctx.issuer,
    client_id: client.client_id,
    resource: (params.resource ?? ctx.defaultResource)!,
    requestedResource: params.resource,
    scope: normalizeScope(params.scope),
    redirect_uri: redirectUri,
    code_challenge: params.code_challenge!,
  });
  answer(302, "code");
  redirect(res, withParams(redirectUri, { code, ...back }));
}

/** The routes of one authorization server whose base URL is `ctx.issuer`. */
export function authorizationServer(ctx: AuthorizationServerContext): RouteHandler {
  const token = tokenEndpoint(ctx);
  const routes: Record<string, { method: string; handle: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void }> = {
    "/.well-known/openid-configuration": { method: "GET", handle: (_req, res) => sendJson(res, 200, openIdMetadata(ctx)) },
    "/jwks": { method: "GET", handle: (_req, res) => sendJson(res, 200, { keys: [] }) },
    "/authorize": { method: "GET", handle: (_req, res, url) => authorize(ctx, res, url) },
    "/token": { method: "POST", handle: token },
  };
  if (!ctx.oidcOnly) routes["/.well-known/oauth-authorization-server"] = { method: "GET", handle: (_req, res) => sendJson(res, 200, oauthMetadata(ctx)) };
  if (ctx.dcr) routes["/register"] = { method: "POST", handle: (req, res) => register(ctx, req, res) };
  return async (req, res, url) => {
    const route = Object.hasOwn(routes, url.pathname) ? routes[url.pathname] : undefined;
    if (!route) return false;
    if (req.method !== route.method) {
      res.writeHead(405, { allow: route.method }).end();
      return true;
    }
    await route.handle(req, res, url);
    return true;
  };
}
