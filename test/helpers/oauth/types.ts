/**
 * Shared types of the OAuth test world (test/helpers/oauth/world.ts): its
 * options, its handle, and the events its servers record for assertions.
 */

export type SpecVersion = "2025-06-18" | "2025-03-26";

/** What the authorization server sends as `iss` (RFC 9207) with its answer: its own issuer, another server's, or nothing. */
export type IssResponse = "issuer" | "wrong" | "missing";

export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "none";

export const CLIENT_AUTH_METHODS: readonly ClientAuthMethod[] = ["client_secret_basic", "client_secret_post", "none"];

export interface PreRegisteredClient {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: ClientAuthMethod;
  /** Default ["http://127.0.0.1/callback"] (loopback: any port matches). */
  redirect_uris?: string[];
}

export interface WorldOptions {
  /**
   * "2025-06-18" (default): MCP servers publish RFC 9728 protected-resource metadata and their 401
   * names it. "2025-03-26": no PRM (404), a bare `WWW-Authenticate: Bearer`, and each MCP server's
   * own origin is its authorization server (RFC 8414 metadata, /authorize, /token, /register there).
   */
  spec?: SpecVersion;
  /** "path" (default): PRM at /.well-known/oauth-protected-resource/mcp, named in the 401. "root": PRM only at /.well-known/oauth-protected-resource, not named in the 401. */
  prmLocation?: "path" | "root";
  /** Dynamic client registration (RFC 7591) at /register. Default true. */
  dcr?: boolean;
  /** Advertise client_id_metadata_document_supported and accept https client_id URLs. Default false. */
  cimd?: boolean;
  /** Clients known in advance. */
  preRegistered?: PreRegisteredClient[];
  /** `scope="…"` in the 401's WWW-Authenticate; omitted when undefined. */
  challengeScope?: string;
  /** The MCP servers answer `initialize` (and notifications) without a token, and ask for one at the next request. */
  openInitialize?: boolean;
  /** PRM `scopes_supported`. */
  scopesSupported?: string[];
  /** AS metadata `scopes_supported`. */
  asScopesSupported?: string[];
  /** Access-token lifetime in seconds (expires_in). Default 3600. */
  accessTokenTtlSec?: number;
  /** Tool name → scope it needs; a tools/call without it gets HTTP 403 insufficient_scope. */
  toolScopes?: Record<string, string>;
  /** How many protected MCP servers (distinct resources). Default 1. */
  servers?: number;
  /** Publish AS metadata only at /.well-known/openid-configuration. Default false. */
  oidcOnly?: boolean;
  /** Advertise authorization_response_iss_parameter_supported (RFC 9207) in the AS metadata. Default true. */
  issParameterSupported?: boolean;
  /** The `iss` each authorization answer carries. Default "issuer" (the AS's own). */
  issResponse?: IssResponse;
  /**
   * How many authorization servers (2025-06-18 mode), each its own issuer and
   * origin; the protected servers name the first until `useAuthorizationServer`
   * moves them. Default 1.
   */
  authorizationServers?: number;
}

export interface WorldServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:P/mcp. */
  url: string;
  /** Its resource identifier (RFC 8707): the same string as `url`. */
  resource: string;
  /** Where its PRM is served (the path-based or the root URL, per prmLocation); undefined in 2025-03-26 mode. */
  prmUrl?: string;
}

/** A GET of any /.well-known/… URL on any world origin. */
export interface DiscoveryEvent {
  kind: "discovery";
  url: string;
  status: number;
}

export interface RegisterEvent {
  kind: "register";
  issuer: string;
  status: number;
  /** The JSON body the client sent. */
  request: unknown;
  client_id?: string;
  token_endpoint_auth_method?: ClientAuthMethod;
  error?: string;
}

export interface AuthorizeEvent {
  kind: "authorize";
  issuer: string;
  /** Every query parameter, as received. */
  params: Record<string, string>;
  /** "code" when a code was issued, else the error code (redirected or answered with 400). */
  outcome: string;
  /** 302 or 400. */
  status: number;
}

export interface TokenEvent {
  kind: "token";
  issuer: string;
  status: number;
  grant_type?: string;
  client_id?: string;
  /** How the client authenticated, as the AS saw it; undefined when it could not tell. */
  auth_method?: ClientAuthMethod;
  resource?: string;
  scope?: string;
  error?: string;
}

export interface CimdFetchEvent {
  kind: "cimd-fetch";
  url: string;
  ok: boolean;
  error?: string;
}

export interface McpEvent {
  kind: "mcp";
  /** Index in `world.servers`. */
  server: number;
  method: string;
  path: string;
  /** HTTP status answered (filled in when the response is sent). */
  status: number;
  /** The Authorization header exactly as received. */
  authorization?: string;
  /** JSON-RPC methods of a POST body, and the tool names of its tools/call messages. */
  rpcMethods: string[];
  tools: string[];
}

export type WorldEvent = DiscoveryEvent | RegisterEvent | AuthorizeEvent | TokenEvent | CimdFetchEvent | McpEvent;

export interface OAuthWorld {
  /** The authorization server's base URL (in 2025-03-26 mode: the first MCP server's origin). */
  issuer: string;
  /** Every authorization server's base URL (`issuer` first). */
  issuers: string[];
  /** Makes every protected server name (and accept tokens of) the authorization server at this index of `issuers` only. */
  useAuthorizationServer(index: number): void;
  servers: WorldServer[];
  /** An https URL of a client metadata document whose client_id is that URL. */
  cimdUrl: string;
  /** Everything the servers saw, in arrival order. */
  events: WorldEvent[];
  /** Every access and refresh token issued so far. */
  issuedTokens(): string[];
  /** Every client secret known (issued by /register or pre-registered). */
  clientSecrets(): string[];
  /** Revoke every refresh token issued so far (the next refresh gets invalid_grant). */
  revokeRefreshTokens(): void;
  /** Make every access token issued so far expire now. */
  expireAccessTokens(): void;
  close(): Promise<void>;
}
