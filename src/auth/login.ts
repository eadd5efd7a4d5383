/**
 * `metatools auth login NS`: the MCP authorization flow, interactively.
 * The server's 401 leads to its protected-resource metadata (RFC 9728) and
 * its authorization server's (RFC 8414, or OpenID discovery); the client is
 * the configured one, else a Client ID Metadata Document URL where the
 * server takes one, else one registered on the spot (RFC 7591); then the
 * authorization code flow with PKCE (S256) and the resource indicator
 * (RFC 8707), the browser coming back to a listener on 127.0.0.1, whose
 * answer must come from the authorization server it was sent to (RFC 9207
 * `iss`). What is stored (the client, the tokens) is stamped with the
 * authorization server it came from and is never presented to another. The
 * SDK's `auth()` runs each step; this module supplies what it leaves to
 * clients.
 */
import { randomBytes } from "node:crypto";
import { IssuerMismatchError, resolveClientMetadata, validateAuthorizationResponseIssuer } from "@modelcontextprotocol/client";
import { auth, discoverOAuthServerInfo, type OAuthClientProvider, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { OAuthSettings, SignInSpec } from "../config/resolved.js";
import { packageVersion } from "../util/version.js";
import type { Credentials, SignIn } from "./credentials.js";
import { listenLoopback, SignInError, type IssuerCheck } from "./loopback.js";
import { oauthFailure, refuseUnsafeEndpoints } from "./oauth-errors.js";
import { oauthFetch } from "./oauth-fetch.js";
import { probe } from "./probe.js";
import { clientOf, expiryOf, sameIssuer, union } from "./sign-in-values.js";

export interface LoginOptions {
  credentials: Credentials;
  /** Hands the authorization URL to a person (opens a browser, prints it). */
  open(url: URL): Promise<void>;
  /** A line of progress for the person. */
  say(line: string): void;
  /** Each secret as it becomes known. */
  secret(value: string): void;
  /** How long the person has to finish in the browser. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Where a failure's full detail (its stack) goes; a person is shown only its message. */
  debug?(line: string): void;
}

export interface LoginResult {
  /** False when the server answered without asking for a sign-in. */
  needed: boolean;
  signIn?: SignIn;
  /** How the client was identified: configured, metadata document, or registered. */
  client?: "configured" | "metadata document" | "registered";
}

/** Longest any one request of the flow (discovery, registration, token) may take. */
const REQUEST_TIMEOUT_MS = 15_000;

/**
 * Signs `spec` in. Whatever goes wrong ends in a MetatoolsError with a code
 * and a message for a person (oauth-errors.ts); the stack goes to `debug`.
 */
export async function login(spec: SignInSpec, options: LoginOptions): Promise<LoginResult> {
  // Every request of the flow, the SDK's included, is bounded in time and in what its answer may hold.
  const exchange = oauthFetch({ timeoutMs: REQUEST_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}) });
  try {
    return await signIn(spec, options, exchange.fetch);
  } catch (error) {
    options.debug?.(`${spec.namespace}: sign-in failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw oauthFailure(error, `${spec.namespace}: signing in`, exchange.last);
  }
}

async function signIn(spec: SignInSpec, options: LoginOptions, fetchFn: FetchLike): Promise<LoginResult> {
  const challenge = await probe(spec, fetchFn);
  if (!challenge) return { needed: false };
  const discovery: OAuthDiscoveryState = {
    ...(await discoverOAuthServerInfo(spec.url, { resourceMetadataUrl: challenge.resourceMetadataUrl, fetchFn })),
    ...(challenge.resourceMetadataUrl ? { resourceMetadataUrl: String(challenge.resourceMetadataUrl) } : {}),
  };
  refuseUnsafeEndpoints(spec.namespace, discovery);
  const { authorizationServerMetadata: server, resourceMetadata } = discovery;
  options.say(`  authorization server: ${discovery.authorizationServerUrl}${server ? "" : " (no metadata published: its default endpoints are used)"}`);

  const stored = await options.credentials.read(spec.namespace);
  const previous = stored?.url === spec.url ? stored : undefined;
  const settings = spec.oauth;
  // A configured client (and its secret) belongs to the authorization server it was first used with.
  const before = previous ? issuerOf(previous) : undefined;
  const moved = before !== undefined && !sameIssuer(before, discovery.authorizationServerUrl);
  if (settings.clientId && moved) {
    throw new SignInError(
      "signin_failed",
      `${spec.namespace}: the authorization server is now ${discovery.authorizationServerUrl}, not ${before}, which the configured client ${settings.clientId} was used with; its secret is not sent to another server. If the move is expected, run \`metatools auth logout ${spec.namespace}\` first`,
    );
  }
  // A registered client (and the tokens) belong to the authorization server they came from: another one gets a sign-in of its own.
  if (moved)
    options.say(
      `  the backend's authorization server is now ${discovery.authorizationServerUrl}, not ${before}, which the stored sign-in came from: its client and tokens are not sent to the new one, which is signed in to anew`,
    );
  // A metadata document URL, where the server takes one, is preferred to a client registered before it was configured.
  const documentPreferred = !!settings.clientMetadataUrl && server?.client_id_metadata_document_supported === true;
  const storedClient = moved || (documentPreferred && previous?.client?.client_id !== settings.clientMetadataUrl) ? undefined : previous?.client;
  // A client registered for another callback port is registered again, unless that port can be had again.
  let port = settings.callbackPort ?? portOf(storedClient) ?? 0;
  const loopback = await listenLoopback(port).catch((error: unknown) => {
    if (settings.callbackPort !== undefined) throw error;
    port = 0;
    return listenLoopback(0);
  });
  try {
    const state = randomBytes(24).toString("base64url");
    const flow = new FlowState(spec.namespace, reusable(storedClient, loopback.port), discovery);
    const provider = flowProvider(settings, loopback.redirectUrl, state, flow, options, supportsPublicClients(server?.token_endpoint_auth_methods_supported));
    // What the server suggests, plus, after a refusal for want of a scope, what the sign-in had and what was missing.
    const suggested = settings.scopes?.join(" ") ?? challenge.scope ?? resourceMetadata?.scopes_supported?.join(" ");
    const scope = previous?.requiredScope ? union(suggested, previous.tokens?.scope, previous.requiredScope) : suggested;
    const request = { serverUrl: spec.url, resourceMetadataUrl: challenge.resourceMetadataUrl, fetchFn, ...(scope ? { scope } : {}) };
    // Waiting before the browser is sent off: a fast one may come back before `auth` returns.
    const answer = loopback.code(
      state,
      options.timeoutMs,
      options.signal,
      (why) => options.say(`  ${why}`),
      issuerCheck(() => flow.discovery ?? discovery),
    );
    answer.catch(() => {}); // Seen below, or moot when `auth` fails first.
    const first = await auth(provider, request);
    if (first !== "REDIRECT")
      throw new SignInError(
        "signin_failed",
        `${spec.namespace}: the authorization server gave tokens without asking the user, which this sign-in does not expect`,
      );
    const code = await answer.catch(async (error: unknown) => {
      // The registration may be what the authorization page refused (deleted, expired): the next sign-in registers anew.
      if (error instanceof SignInError && error.code === "signin_timeout" && flow.client && !settings.clientId)
        await options.credentials.update(spec.namespace, (r) => r && { ...r, client: undefined });
      throw error;
    });
    await auth(provider, { ...request, authorizationCode: code });
    if (!flow.tokens) throw new SignInError("signin_failed", `${spec.namespace}: the token endpoint answered without tokens`);
    const tokens = flow.tokens;
    const granted = tokens.scope;
    const signIn = await options.credentials.update(spec.namespace, () => ({
      url: spec.url,
      ...(resourceMetadata?.resource ? { resource: resourceMetadata.resource } : {}),
      discovery: flow.discovery ?? discovery,
      ...(flow.client && !settings.clientId ? { client: flow.client } : {}),
      tokens,
      ...(expiryOf(tokens) ? { expiresAt: expiryOf(tokens) } : {}),
      // A scope still missing from what was granted is asked for again next time.
      ...(previous?.requiredScope && granted && !covers(granted, previous.requiredScope) ? { requiredScope: previous.requiredScope } : {}),
      updatedAt: Date.now(),
    }));
    return {
      needed: true,
      signIn,
      client: settings.clientId ? "configured" : flow.client?.client_id.startsWith("https://") ? "metadata document" : "registered",
    };
  } finally {
    await loopback.close();
  }
}

/** What the flow learns as it goes; kept in memory until the sign-in is complete. */
class FlowState {
  tokens: OAuthTokens | undefined;
  verifier = "";
  constructor(
    readonly namespace: string,
    public client: OAuthClientInformationMixed | undefined,
    public discovery: OAuthDiscoveryState | undefined,
  ) {}
}

/** The SDK's client provider over one sign-in: tokens are never reused here (signing in asks anew), everything else is. */
function flowProvider(
  settings: OAuthSettings,
  redirectUrl: string,
  state: string,
  flow: FlowState,
  options: LoginOptions,
  publicClients: boolean,
): OAuthClientProvider {
  // `application_type` (native: the redirect is a loopback one) and the grant types, as the v2 SDK derives them.
  const metadata = resolveClientMetadata({
    redirectUrl,
    clientMetadata: {
      client_name: "metatools",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: publicClients ? "none" : "client_secret_basic",
      software_id: "metatools",
      software_version: packageVersion(),
      ...(settings.scopes ? { scope: settings.scopes.join(" ") } : {}),
    },
  }) as OAuthClientMetadata;
  return {
    redirectUrl,
    ...(settings.clientMetadataUrl ? { clientMetadataUrl: settings.clientMetadataUrl } : {}),
    clientMetadata: metadata,
    state: () => state,
    clientInformation: () => clientOf(settings, flow.client ? ({ client: flow.client } as SignIn) : undefined),
    saveClientInformation: (client) => {
      if (settings.clientId) return;
      if (client.client_secret) options.secret(client.client_secret);
      flow.client = client;
    },
    tokens: () => undefined,
    saveTokens: (tokens) => {
      for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token]) if (value) options.secret(value);
      flow.tokens = tokens;
    },
    redirectToAuthorization: (url) => options.open(url),
    saveCodeVerifier: (verifier) => {
      flow.verifier = verifier;
    },
    codeVerifier: () => flow.verifier,
    invalidateCredentials: async (what) => {
      if (what === "all" || what === "client") {
        // Refused by the server (invalid_client): forgotten for good, not only for this attempt.
        flow.client = undefined;
        if (!settings.clientId) await options.credentials.update(flow.namespace, (r) => r && { ...r, client: undefined });
      }
      if (what === "all" || what === "discovery") flow.discovery = undefined;
    },
    saveDiscoveryState: (discovery) => {
      flow.discovery = discovery;
    },
    discoveryState: () => flow.discovery,
  };
}

/** A stored client still worth presenting: registered for this callback port (or for none: a metadata document URL), its secret unexpired. */
function reusable(client: OAuthClientInformationMixed | undefined, port: number): OAuthClientInformationMixed | undefined {
  if (!client) return undefined;
  const registeredPort = portOf(client);
  if (registeredPort !== undefined && registeredPort !== port) return undefined;
  const expires = client.client_secret_expires_at;
  if (expires && expires * 1000 < Date.now() + 60_000) return undefined;
  return client;
}

/**
 * The check of the authorization response's `iss` (RFC 9207): where the
 * server's metadata says it sends one, it must be there and be its issuer;
 * where it does not, one that is there must still be. Without metadata the
 * server's URL stands for its issuer.
 */
function issuerCheck(discovery: () => OAuthDiscoveryState): IssuerCheck {
  return (iss) => {
    const { authorizationServerMetadata: server, authorizationServerUrl } = discovery();
    const expected = server?.issuer ?? String(authorizationServerUrl);
    const promised = (server as Record<string, unknown> | undefined)?.authorization_response_iss_parameter_supported === true;
    if (!server && (iss === undefined || sameIssuer(iss, expected))) return undefined;
    try {
      validateAuthorizationResponseIssuer({ iss, expectedIssuer: expected, issParameterSupported: promised });
      return undefined;
    } catch (error) {
      if (!(error instanceof IssuerMismatchError)) throw error;
      return new SignInError(
        "oauth_issuer_mismatch",
        iss === undefined
          ? `the browser came back without the \`iss\` parameter, which ${shownIssuer(expected)} says its answers always carry (RFC 9207): the answer may come from another authorization server, so its code was not used and nothing was stored; run the command again, and tell the server's operator if it happens again`
          : `the browser came back with an answer from ${shownIssuer(iss)}, not from ${shownIssuer(expected)}, the authorization server this sign-in was sent to (RFC 9207 \`iss\`): its code was not used and nothing was stored; run the command again, and tell the server's operator if it happens again`,
      );
    }
  };
}

/** An issuer as compared (exactly, RFC 9207), quoted on one line and cut short: a remote party's text. */
function shownIssuer(issuer: string): string {
  return JSON.stringify(issuer.length > 200 ? `${issuer.slice(0, 200)}…` : issuer);
}

/** The authorization server a stored sign-in came from: stamped on its client and tokens, else (written before stamps) the one it discovered. */
function issuerOf(signIn: SignIn): string | undefined {
  return signIn.client?.issuer ?? signIn.tokens?.issuer ?? signIn.discovery?.authorizationServerUrl;
}

/** The callback port a registered client was registered with. */
function portOf(client: OAuthClientInformationMixed | undefined): number | undefined {
  const uri = client && "redirect_uris" in client ? client.redirect_uris?.[0] : undefined;
  if (!uri) return undefined;
  try {
    const url = new URL(uri);
    return url.hostname === "127.0.0.1" && url.port ? Number(url.port) : undefined;
  } catch {
    return undefined;
  }
}

/** A registered client without a secret where the server takes them (or does not say: RFC 8414's default is basic, so then a secret is asked for). */
function supportsPublicClients(methods: string[] | undefined): boolean {
  return methods?.includes("none") ?? false;
}

function covers(granted: string, wanted: string): boolean {
  const have = new Set(granted.split(/\s+/));
  return wanted.split(/\s+/).every((s) => have.has(s));
}
