/**
 * The parts of a stored sign-in both the interactive flow (login.ts) and the
 * serve-time signer (signer.ts) work out the same way: the client to
 * present, whether two issuer URLs are one, when tokens expire, the scopes
 * asked for.
 */
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { OAuthSettings } from "../config/resolved.js";
import type { SignIn } from "./credentials.js";

/** The client to present: the one in the config, else the one stored at sign-in. */
export function clientOf(settings: OAuthSettings, signIn: SignIn | undefined): OAuthClientInformationMixed | undefined {
  if (settings.clientId) {
    return {
      client_id: settings.clientId,
      ...(settings.clientSecret ? { client_secret: settings.clientSecret } : {}),
      token_endpoint_auth_method: settings.tokenEndpointAuthMethod ?? (settings.clientSecret ? "client_secret_basic" : "none"),
      redirect_uris: [],
    };
  }
  return signIn?.client;
}

/** Two spellings of one authorization server's URL (a trailing slash aside). */
export function sameIssuer(a: string, b: string): boolean {
  try {
    return new URL(a).href.replace(/\/$/, "") === new URL(b).href.replace(/\/$/, "");
  } catch {
    return a === b;
  }
}

/** When tokens received now expire, from their `expires_in`. */
export function expiryOf(tokens: OAuthTokens): number | undefined {
  return tokens.expires_in === undefined ? undefined : Date.now() + tokens.expires_in * 1000;
}

/** Space-separated scopes, each once. */
export function union(...scopes: (string | undefined)[]): string | undefined {
  const all = [...new Set(scopes.flatMap((s) => s?.split(/\s+/).filter(Boolean) ?? []))];
  return all.length ? all.join(" ") : undefined;
}
