/**
 * A remote backend's sign-in while metatools serves: every request carries
 * the stored access token (only to the URL it was obtained for); a token
 * about to expire, or refused with 401, is refreshed once; when no token
 * will do, the request fails with `NeedsLoginError`, naming the command
 * that signs in. Serving never opens a browser or waits for a person.
 */
import {
  InvalidClientError,
  OAuthError,
  ServerError,
  TemporarilyUnavailableError,
  TooManyRequestsError,
  UnauthorizedClientError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { SignInSpec } from "../config/resolved.js";
import { MetatoolsError } from "../util/errors.js";
import type { Credentials, SignIn } from "./credentials.js";
import { oauthFailure } from "./oauth-errors.js";
import { clientOf, expiryOf, sameIssuer, union } from "./sign-in-values.js";
import { oauthFetch } from "./oauth-fetch.js";

/** The SDK's OAuth client (and the schemas it parses with), loaded at the first request that needs it: a CLI search never does. */
const sdkAuth = () => import("@modelcontextprotocol/sdk/client/auth.js");

/** A token this close to its expiry is refreshed before it is sent. */
const REFRESH_BEFORE_MS = 60_000;
/** Longest a token refresh may take. */
const REFRESH_TIMEOUT_MS = 15_000;
/** Longest the look at a refusing backend's metadata (has its authorization server changed?) may take. */
const MOVED_CHECK_TIMEOUT_MS = 5_000;

/** The server wants a sign-in (or a broader one) that only a person can give. */
export class NeedsLoginError extends MetatoolsError {
  constructor(
    message: string,
    /** "login": no usable token; "scope": the token lacks a scope this call needs (other calls still work). */
    readonly reason: "login" | "scope",
  ) {
    super("needs_login", message);
    this.name = "NeedsLoginError";
  }
}

export interface SignerHooks {
  /** Each token or secret as it becomes known, so every edge redacts it. */
  secret(value: string): void;
  /** The exact command that signs this backend in. */
  loginCommand: string;
}

/** Signs one remote backend's requests with its stored access token, refreshing it when due. */
export class TokenSigner {
  /** Set when a request of this connection ended in NeedsLoginError, until one succeeds. */
  needsLogin: NeedsLoginError | undefined;
  private refreshing: Promise<OAuthTokens | undefined> | undefined;
  /** Tokens this process renewed, in case they could not be written: used while the store still holds the refresh token they replaced. */
  private renewed: { from: string; tokens: OAuthTokens; expiresAt: number | undefined } | undefined;
  private readonly origin: string;

  constructor(
    private readonly spec: SignInSpec,
    private readonly credentials: Credentials,
    private readonly hooks: SignerHooks,
  ) {
    this.origin = new URL(spec.url).origin;
  }

  /** A new connection starts with no verdict. */
  reset(): void {
    this.needsLogin = undefined;
  }

  get namespace(): string {
    return this.spec.namespace;
  }

  /** `inner` with the sign-in applied. */
  fetch(inner: FetchLike): FetchLike {
    return async (input, init) => {
      // The token goes to the backend's own origin only, whatever URL the transport is handed.
      if (new URL(input instanceof Request ? input.url : String(input)).origin !== this.origin) return inner(input, init);
      let signIn = await this.current();
      let tokens = signIn?.tokens;
      if (signIn && tokens?.refresh_token && expiresSoon(signIn)) tokens = (await this.refresh(tokens).catch(() => undefined)) ?? tokens;
      let response = await inner(input, withBearer(init, tokens));
      if (response.status === 401 && tokens?.refresh_token) {
        const fresh = await this.refresh(tokens).catch(async (error: unknown) => {
          await response.body?.cancel().catch(() => {});
          throw error;
        });
        if (fresh) {
          await response.body?.cancel();
          tokens = fresh;
          response = await inner(input, withBearer(init, fresh));
        }
      }
      if (response.status === 401) throw this.refused(await this.loginNeeded(response, tokens));
      if (response.status === 403) {
        const { error, scope } = (await sdkAuth()).extractWWWAuthenticateParams(response);
        if (error === "insufficient_scope") {
          signIn = await this.credentials.update(this.namespace, (r) => r && { ...r, requiredScope: union(r.requiredScope, scope) });
          await response.body?.cancel();
          throw this.refused(
            new NeedsLoginError(
              `${this.namespace} refused the call: it needs scope "${scope ?? "?"}", and the sign-in has ${tokens?.scope ? `"${tokens.scope}"` : "none"}. Sign in again with \`${this.hooks.loginCommand}\` (it asks for that scope); a running metatools picks the sign-in up without a restart`,
              "scope",
            ),
          );
        }
      }
      if (response.ok) this.needsLogin = undefined;
      return response;
    };
  }

  /** Calls `listener` when this backend's stored sign-in changes (a `metatools auth login` in another process). */
  watch(listener: () => void): () => void {
    return this.credentials.watch(this.namespace, listener);
  }

  /** The stored sign-in when it was made for this URL; its secrets are handed to the redactor first. */
  private async current(): Promise<SignIn | undefined> {
    let signIn = await this.credentials.read(this.namespace);
    if (!signIn || signIn.url !== this.spec.url) return undefined;
    if (this.renewed && signIn.tokens?.refresh_token === this.renewed.from)
      signIn = { ...signIn, tokens: this.renewed.tokens, expiresAt: this.renewed.expiresAt };
    this.learn(signIn);
    return signIn;
  }

  private learn(signIn: SignIn): void {
    for (const value of [signIn.tokens?.access_token, signIn.tokens?.refresh_token, signIn.tokens?.id_token, signIn.client?.client_secret])
      if (value) this.hooks.secret(value);
  }

  private refused(error: NeedsLoginError): NeedsLoginError {
    if (error.reason === "login") this.needsLogin = error;
    return error;
  }

  private async loginNeeded(response: Response, tokens: OAuthTokens | undefined): Promise<NeedsLoginError> {
    const { error, resourceMetadataUrl } = (await sdkAuth()).extractWWWAuthenticateParams(response);
    await response.body?.cancel();
    const moved = tokens && resourceMetadataUrl ? await this.movedFrom(resourceMetadataUrl) : undefined;
    if (moved)
      return new NeedsLoginError(
        `${this.namespace} needs a new sign-in: its authorization server is now ${moved.now}, not ${moved.before}, which the stored sign-in came from (its tokens and client are not sent to another server): run \`${this.hooks.loginCommand}\`; a running metatools picks the sign-in up without a restart`,
        "login",
      );
    const why = !tokens ? "it answered HTTP 401" : `it refused the stored sign-in (HTTP 401${error ? `, ${error}` : ""}), which could not be renewed`;
    return new NeedsLoginError(
      `${this.namespace} needs a sign-in (${why}): run \`${this.hooks.loginCommand}\`; a running metatools picks the sign-in up without a restart`,
      "login",
    );
  }

  /**
   * The authorization server the backend's protected-resource metadata names
   * now, when it is not the one the stored sign-in came from. Only metadata on
   * the backend's own origin is asked for, once, briefly; any failure is no answer.
   */
  private async movedFrom(metadataUrl: URL): Promise<{ before: string; now: string } | undefined> {
    if (metadataUrl.origin !== this.origin) return undefined;
    const signIn = await this.current().catch(() => undefined);
    const before = signIn?.tokens?.issuer ?? signIn?.discovery?.authorizationServerUrl;
    if (!before) return undefined;
    const exchange = oauthFetch({ timeoutMs: MOVED_CHECK_TIMEOUT_MS, redirect: "error" });
    try {
      const answer = await exchange.fetch(metadataUrl, { headers: { accept: "application/json" } });
      if (!answer.ok) {
        await answer.body?.cancel();
        return undefined;
      }
      const servers = ((await answer.json()) as { authorization_servers?: unknown } | null)?.authorization_servers;
      if (!Array.isArray(servers) || servers.some((s) => typeof s !== "string") || !servers.length) return undefined;
      if ((servers as string[]).some((s) => sameIssuer(s, before))) return undefined;
      return { before, now: servers[0] as string };
    } catch {
      return undefined;
    }
  }

  /** One refresh at a time; undefined when the refresh token is gone or refused (a new sign-in is needed). Network failures reject. */
  private refresh(stale: OAuthTokens): Promise<OAuthTokens | undefined> {
    this.refreshing ??= this.refreshOnce(stale).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private refreshOnce(stale: OAuthTokens): Promise<OAuthTokens | undefined> {
    // Under the token file's lock: another server refreshing the same sign-in waits, then finds the tokens renewed.
    return this.credentials.exclusive(this.namespace, REFRESH_TIMEOUT_MS, async (view) => {
      const signIn = await view.read();
      if (!signIn || signIn.url !== this.spec.url) return undefined;
      this.learn(signIn);
      // Another process (a replica, a sign-in) may have renewed the tokens already.
      if (signIn.tokens && signIn.tokens.access_token !== stale.access_token && !expiresSoon(signIn)) return signIn.tokens;
      const client = clientOf(this.spec.oauth, signIn);
      const server = signIn.discovery?.authorizationServerUrl;
      const refreshToken = signIn.tokens?.refresh_token;
      if (!client || !server || !refreshToken) return undefined;
      // The refresh token and the client go only to the authorization server they came from (a record without stamps: the one it discovered).
      if (![signIn.tokens?.issuer, signIn.client?.issuer].every((issuer) => issuer === undefined || sameIssuer(issuer, String(server)))) return undefined;
      let received: OAuthTokens;
      // Its answer is read up to 1 MiB at most (oauth-fetch.ts): a server answering 300 MB fails this refresh, nothing more.
      const exchange = oauthFetch({ timeoutMs: REFRESH_TIMEOUT_MS, redirect: "error" });
      try {
        received = await (
          await sdkAuth()
        ).refreshAuthorization(server, {
          metadata: signIn.discovery?.authorizationServerMetadata,
          clientInformation: client,
          refreshToken,
          ...(signIn.resource ? { resource: signIn.resource } : {}),
          fetchFn: exchange.fetch,
        });
      } catch (error) {
        // Worth another try later: the network, the server's own trouble or an answer that cannot be used, or being told to slow down.
        if (
          !(error instanceof OAuthError) ||
          error instanceof ServerError ||
          error instanceof TemporarilyUnavailableError ||
          error instanceof TooManyRequestsError
        )
          throw oauthFailure(error, `${this.namespace}: renewing the sign-in (tried again at the next request)`, exchange.last);
        // Refused for good (invalid_grant: revoked or expired; invalid_client: the registration is gone). Only what was refused is dropped.
        const now = await view.read();
        if (now?.tokens?.refresh_token && now.tokens.refresh_token !== refreshToken) return now.tokens;
        await view.write((r) =>
          r?.tokens?.refresh_token === refreshToken
            ? {
                ...r,
                tokens: undefined,
                expiresAt: undefined,
                ...(error instanceof InvalidClientError || error instanceof UnauthorizedClientError ? { client: undefined } : {}),
              }
            : r,
        );
        return undefined;
      }
      // Stamped with the server they came from; a record written before stamps gets them now.
      const issuer = signIn.tokens?.issuer ?? String(server);
      const tokens: OAuthTokens = { ...received, refresh_token: received.refresh_token ?? refreshToken, issuer };
      for (const value of [tokens.access_token, tokens.refresh_token, tokens.id_token]) if (value) this.hooks.secret(value);
      // Kept in memory whatever happens to the write: the server has rotated the refresh token already.
      this.renewed = { from: refreshToken, tokens, expiresAt: expiryOf(tokens) };
      await view
        .write((r) =>
          r && r.tokens?.refresh_token === refreshToken
            ? { ...r, tokens, expiresAt: expiryOf(tokens), ...(r.client && r.client.issuer == null ? { client: { ...r.client, issuer } } : {}) }
            : r,
        )
        .catch(() => {});
      return tokens;
    });
  }
}

/** Within a minute of expiry, or half its lifetime for a token that lives less than two. */
function expiresSoon(signIn: SignIn): boolean {
  if (signIn.expiresAt === undefined) return false;
  const margin = Math.min(REFRESH_BEFORE_MS, ((signIn.tokens?.expires_in ?? 0) * 1000) / 2);
  return signIn.expiresAt - Date.now() < margin;
}

function withBearer(init: RequestInit | undefined, tokens: OAuthTokens | undefined): RequestInit | undefined {
  if (!tokens) return init;
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${tokens.access_token}`);
  return { ...init, headers };
}
