/**
 * In-memory state of the OAuth test world: authorization codes (single use,
 * PKCE-bound) and the opaque access and refresh tokens the authorization
 * server issues, each bound to a client, an audience (resource) and a scope.
 */
import { randomBytes } from "node:crypto";

const CODE_TTL_MS = 60_000;

/** What a token or code stands for. */
export interface Grant {
  /** The issuer of the authorization server that granted it. */
  issuer: string;
  client_id: string;
  /** The audience: an MCP server's resource identifier. */
  resource: string;
  /** Space-separated granted scopes; "" when none. */
  scope: string;
}

export interface AuthorizationCode extends Grant {
  redirect_uri: string;
  code_challenge: string;
  /** The `resource` parameter exactly as sent to /authorize (absent only in 2025-03-26 mode). */
  requestedResource?: string;
  expiresAt: number;
}

interface AccessRecord extends Grant {
  expiresAt: number;
}

interface RefreshRecord extends Grant {
  revoked: boolean;
}

export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export function opaque(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString("base64url")}`;
}

export class CodeStore {
  private readonly codes = new Map<string, AuthorizationCode>();
  /** Codes already redeemed, with the tokens they produced (revoked if the code is replayed, RFC 6749 §4.1.2). */
  private readonly redeemed = new Map<string, string[]>();

  create(code: Omit<AuthorizationCode, "expiresAt">): string {
    const value = opaque("code");
    this.codes.set(value, { ...code, expiresAt: Date.now() + CODE_TTL_MS });
    return value;
  }

  /** Removes and returns the code if it is live; a replayed code gives `replayedTokens` instead. */
  take(value: string): { code?: AuthorizationCode; replayedTokens?: string[] } {
    const code = this.codes.get(value);
    if (code) {
      this.codes.delete(value);
      return code.expiresAt > Date.now() ? { code } : {};
    }
    return { replayedTokens: this.redeemed.get(value) };
  }

  remember(value: string, tokens: string[]): void {
    this.redeemed.set(value, tokens);
  }
}

export class TokenStore {
  private readonly access = new Map<string, AccessRecord>();
  private readonly refresh = new Map<string, RefreshRecord>();

  constructor(private readonly ttlSec: number) {}

  issue(grant: Grant): IssuedTokens {
    const access_token = opaque("at");
    const refresh_token = opaque("rt");
    this.access.set(access_token, { ...grant, expiresAt: Date.now() + this.ttlSec * 1000 });
    this.refresh.set(refresh_token, { ...grant, revoked: false });
    return { access_token, refresh_token, expires_in: this.ttlSec };
  }

  /** The grant of a live (known, unexpired) access token. */
  liveAccessToken(token: string): Grant | undefined {
    const record = this.access.get(token);
    return record && record.expiresAt > Date.now() ? record : undefined;
  }

  /** The grant of a live refresh token of this issuer and client. */
  refreshGrant(token: string, issuer: string, clientId: string): Grant | undefined {
    const record = this.refresh.get(token);
    if (!record || record.revoked || record.issuer !== issuer || record.client_id !== clientId) return undefined;
    return { issuer: record.issuer, client_id: record.client_id, resource: record.resource, scope: record.scope };
  }

  revoke(tokens: string[]): void {
    for (const token of tokens) {
      const access = this.access.get(token);
      if (access) access.expiresAt = 0;
      const refresh = this.refresh.get(token);
      if (refresh) refresh.revoked = true;
    }
  }

  revokeRefreshTokens(): void {
    for (const record of this.refresh.values()) record.revoked = true;
  }

  expireAccessTokens(): void {
    for (const record of this.access.values()) record.expiresAt = 0;
  }

  all(): string[] {
    return [...this.access.keys(), ...this.refresh.keys()];
  }
}
