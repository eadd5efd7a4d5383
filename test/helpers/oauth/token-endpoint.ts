/**
 * The test authorization server's token endpoint: client authentication by
 * the client's registered method only (RFC 6749 §2.3.1 Basic, body secret, or
 * none), the authorization_code grant (single-use code, PKCE S256, same
 * redirect_uri and resource) and the refresh_token grant (rotation, no
 * widening of resource or scope). Errors follow RFC 6749 §5.2 / RFC 8707.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuthorizationServerContext } from "./authorization-server.js";
import { normalizeScope } from "./authorization-server.js";
import type { Client } from "./clients.js";
import { mediaType, readBody, sendJson, sendOAuthError, singleValued } from "./http.js";
import type { Grant } from "./store.js";
import type { ClientAuthMethod, TokenEvent } from "./types.js";

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

interface Problem {
  status: number;
  error: string;
  description: string;
  headers?: Record<string, string>;
}

interface Presented {
  method: ClientAuthMethod;
  client_id: string;
  secret?: string;
}

const problem = (error: string, description: string, status = 400): Problem => ({ status, error, description });

/** application/x-www-form-urlencoded decoding of one Basic credential half (RFC 6749 §2.3.1). */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, " "));
}

function basicCredentials(header: string, params: Record<string, string>): Presented | Problem {
  const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header);
  if (!match) return problem("invalid_client", "unsupported Authorization header", 401);
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return problem("invalid_client", "malformed Basic credentials", 401);
  let presented: Presented;
  try {
    presented = { method: "client_secret_basic", client_id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return problem("invalid_client", "Basic credentials are not form-urlencoded", 401);
  }
  if (params.client_secret !== undefined) return problem("invalid_request", "more than one client authentication method");
  if (params.client_id !== undefined && params.client_id !== presented.client_id)
    return problem("invalid_request", "client_id in the body differs from the Basic credentials");
  return presented;
}

/** Which client the request claims to be, and how it authenticates. */
function presentedCredentials(req: IncomingMessage, params: Record<string, string>): Presented | Problem {
  const header = req.headers.authorization;
  if (header !== undefined) return basicCredentials(header, params);
  if (!params.client_id) return problem("invalid_client", "no client authentication", 401);
  if (params.client_secret !== undefined) return { method: "client_secret_post", client_id: params.client_id, secret: params.client_secret };
  return { method: "none", client_id: params.client_id };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

async function authenticate(ctx: AuthorizationServerContext, presented: Presented): Promise<Client | Problem> {
  const refuse = (description: string): Problem => ({
    ...problem("invalid_client", description, 401),
    ...(presented.method === "client_secret_basic" ? { headers: { "www-authenticate": `Basic realm="${ctx.issuer}"` } } : {}),
  });
  const client = await ctx.clients.find(presented.client_id);
  if (!client) return refuse("unknown client");
  if (client.token_endpoint_auth_method !== presented.method)
    return refuse(`this client must authenticate with ${client.token_endpoint_auth_method}, not ${presented.method}`);
  if (presented.method !== "none" && !(client.client_secret !== undefined && sameSecret(client.client_secret, presented.secret ?? "")))
    return refuse("wrong client secret");
  return client;
}

function pkceMatches(verifier: string, challenge: string): boolean {
  return VERIFIER.test(verifier) && createHash("sha256").update(verifier).digest("base64url") === challenge;
}

function codeGrant(ctx: AuthorizationServerContext, client: Client, params: Record<string, string>): { grant: Grant; code: string } | Problem {
  const { code: value, code_verifier: verifier, redirect_uri: redirectUri } = params;
  if (!value || !verifier || !redirectUri) return problem("invalid_request", "code, code_verifier and redirect_uri are required");
  const { code, replayedTokens } = ctx.codes.take(value);
  if (replayedTokens) ctx.tokens.revoke(replayedTokens);
  if (!code || code.issuer !== ctx.issuer) return problem("invalid_grant", "the code is unknown, expired or already used");
  if (code.client_id !== client.client_id) return problem("invalid_grant", "the code was issued to another client");
  if (code.redirect_uri !== redirectUri) return problem("invalid_grant", "redirect_uri differs from the authorization request's");
  if (!pkceMatches(verifier, code.code_challenge)) return problem("invalid_grant", "PKCE verification failed");
  const sameResource = params.resource === code.requestedResource || (code.requestedResource === undefined && params.resource === code.resource);
  if (!sameResource) return problem("invalid_target", "resource is missing or differs from the authorization request's");
  return { grant: { issuer: code.issuer, client_id: code.client_id, resource: code.resource, scope: code.scope }, code: value };
}

function refreshGrant(ctx: AuthorizationServerContext, client: Client, params: Record<string, string>): { grant: Grant; refreshToken: string } | Problem {
  const refreshToken = params.refresh_token;
  if (!refreshToken) return problem("invalid_request", "refresh_token is required");
  const grant = ctx.tokens.refreshGrant(refreshToken, ctx.issuer, client.client_id);
  if (!grant) return problem("invalid_grant", "the refresh token is unknown, revoked or issued to another client");
  if (params.resource !== undefined && params.resource !== grant.resource)
    return problem("invalid_target", "a refresh token cannot be used for another resource");
  const granted = grant.scope.split(" ");
  const requested = params.scope === undefined ? grant.scope : normalizeScope(params.scope);
  if (requested && requested.split(" ").some((s) => !granted.includes(s))) return problem("invalid_scope", "the requested scope exceeds the original grant");
  return { grant: { ...grant, scope: requested }, refreshToken };
}

function isProblem(value: object): value is Problem {
  return "error" in value;
}

/** The grant a well-formed, authenticated request is for, once its code or refresh token is used up. */
function resolveGrant(ctx: AuthorizationServerContext, client: Client, params: Record<string, string>): Grant | Problem {
  if (params.grant_type === "authorization_code") {
    const result = codeGrant(ctx, client, params);
    return isProblem(result) ? result : result.grant;
  }
  if (params.grant_type === "refresh_token") {
    const result = refreshGrant(ctx, client, params);
    if (isProblem(result)) return result;
    ctx.tokens.revoke([result.refreshToken]);
    return result.grant;
  }
  return problem("unsupported_grant_type", `unsupported grant_type: ${params.grant_type ?? "(none)"}`);
}

async function readParams(req: IncomingMessage): Promise<Record<string, string> | Problem> {
  if (mediaType(req) !== "application/x-www-form-urlencoded") return problem("invalid_request", "the body must be application/x-www-form-urlencoded");
  return singleValued(new URLSearchParams(await readBody(req))) ?? problem("invalid_request", "a parameter is repeated");
}

async function exchange(ctx: AuthorizationServerContext, req: IncomingMessage, event: TokenEvent): Promise<Record<string, unknown> | Problem> {
  const params = await readParams(req);
  if (isProblem(params)) return params;
  Object.assign(event, { grant_type: params.grant_type, resource: params.resource, scope: params.scope });
  const presented = presentedCredentials(req, params);
  if (isProblem(presented)) return presented;
  Object.assign(event, { client_id: presented.client_id, auth_method: presented.method });
  const client = await authenticate(ctx, presented);
  if (isProblem(client)) return client;
  const grant = resolveGrant(ctx, client, params);
  if (isProblem(grant)) return grant;
  const tokens = ctx.tokens.issue(grant);
  if (params.grant_type === "authorization_code") ctx.codes.remember(params.code!, [tokens.access_token, tokens.refresh_token]);
  return { ...tokens, token_type: "Bearer", ...(grant.scope ? { scope: grant.scope } : {}) };
}

export function tokenEndpoint(ctx: AuthorizationServerContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const event: TokenEvent = { kind: "token", issuer: ctx.issuer, status: 200 };
    const result = await exchange(ctx, req, event);
    if (isProblem(result)) {
      Object.assign(event, { status: result.status, error: result.error });
      ctx.record(event);
      return sendOAuthError(res, result.status, result.error, result.description, result.headers);
    }
    ctx.record(event);
    sendJson(res, 200, result, { pragma: "no-cache" });
  };
}
