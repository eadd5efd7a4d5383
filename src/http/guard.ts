/**
 * Who may call `/mcp`: bearer tokens compared in constant time, the Host
 * and Origin checks that stop DNS rebinding, and a per-token rate limit.
 * Each check answers with the status and message to send, or nothing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { namedPrincipal, tokenPrincipal } from "../security/principal.js";

export interface Refusal {
  status: number;
  message: string;
  /** The JSON-RPC error code in the body; default -32000. */
  code?: number;
  /** The id of the request refused, when it could be read; default null. */
  id?: string | number | null;
  headers?: Record<string, string>;
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Who a request is from: `key` for rate limiting, `principal` for what its calls keep (output handles, cached results). */
export interface Caller {
  key: string;
  principal: string;
  /** The profile its token names (metatools.http.tokens `{token, profile}`); undefined: the default, or the one the URL path names. */
  profile?: string;
}

/** Checks `Authorization: Bearer …` against the configured tokens; returns the matching token's caller. */
export class BearerAuth {
  private readonly digests: Buffer[];
  /** Each token's principal, derived at start: deriving it is deliberately slow. */
  private readonly principals: string[];

  constructor(
    tokens: readonly string[],
    private readonly profiles: readonly (string | undefined)[] = [],
    names: readonly (string | undefined)[] = [],
  ) {
    // Comparing digests keeps every comparison the same length, so timing says nothing about a token's length or prefix.
    this.digests = tokens.map(digest);
    this.principals = tokens.map((token, i) => (names[i] !== undefined ? namedPrincipal(names[i]) : tokenPrincipal(token)));
  }

  get enabled(): boolean {
    return this.digests.length > 0;
  }

  check(header: string | undefined): Caller | Refusal {
    const challenge = { "WWW-Authenticate": 'Bearer realm="metatools"' };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
    if (!match) return { status: 401, message: "missing bearer token: send Authorization: Bearer <token>", headers: challenge };
    const presented = digest(match[1]!);
    let found = -1;
    // Every token is compared, whichever matches, so the time taken does not say which one did.
    this.digests.forEach((d, i) => {
      if (timingSafeEqual(d, presented) && found < 0) found = i;
    });
    if (found < 0) return { status: 401, message: "invalid bearer token", headers: { "WWW-Authenticate": 'Bearer realm="metatools", error="invalid_token"' } };
    const profile = this.profiles[found];
    return { key: `token:${found}`, principal: this.principals[found]!, ...(profile !== undefined ? { profile } : {}) };
  }
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return bare === "localhost" || bare === "::1" || (isIP(bare) === 4 && bare.startsWith("127."));
}

/**
 * DNS rebinding defence. A browser page on a foreign site that resolves its
 * name to 127.0.0.1 still sends its own Origin and Host: a loopback bind
 * accepts only loopback Host names, and any Origin must be loopback (on a
 * loopback bind) or on the allow-list. No Origin means no browser: allowed.
 */
export function checkOrigin(req: IncomingMessage, options: { loopbackBind: boolean; allowedOrigins: readonly string[] }): Refusal | undefined {
  if (options.loopbackBind) {
    const host = (req.headers.host ?? "").replace(/:\d+$/, "");
    if (host && !isLoopback(host)) return { status: 403, message: `Host "${req.headers.host}" is not a loopback name; this server is bound to loopback` };
  }
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return { status: 403, message: `Origin "${origin}" is not a valid origin` };
  }
  if (options.allowedOrigins.includes(parsed.origin)) return undefined;
  if (options.loopbackBind && isLoopback(parsed.hostname)) return undefined;
  return { status: 403, message: `Origin ${parsed.origin} is not allowed; add it to metatools.http.allowedOrigins` };
}

/** A token bucket per key: `burst` at once, refilled at `perMinute`. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes `cost` requests' worth (a batch costs its message count), or says when to retry. */
  take(key: string, cost = 1): Refusal | undefined {
    if (cost > this.burst) return { status: 429, message: `a batch of ${cost} messages exceeds the rate limit's burst of ${this.burst}; send fewer at once` };
    const now = this.now();
    const rate = this.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return undefined;
    }
    const waitS = Math.ceil((cost - bucket.tokens) / rate / 1000);
    return {
      status: 429,
      message: `rate limit of ${this.perMinute} requests per minute reached; retry in ${waitS} s`,
      headers: { "Retry-After": String(waitS) },
    };
  }

  /** Forgets buckets that have refilled, so idle clients cost no memory. */
  sweep(): void {
    const now = this.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * (this.perMinute / 60_000) >= this.burst) this.buckets.delete(key);
    }
  }
}

/** The request headers a browser client of Streamable HTTP sends, and the response header it must read. */
const CORS = {
  "Access-Control-Allow-Methods": "GET, POST, DELETE",
  "Access-Control-Allow-Headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
  "Access-Control-Expose-Headers": "Mcp-Session-Id",
  "Access-Control-Max-Age": "600",
};

/** CORS headers for a request from an origin `checkOrigin` let through; none for a request without an Origin. */
export function corsHeaders(origin: string | undefined): Record<string, string> {
  return origin === undefined ? {} : { "Access-Control-Allow-Origin": new URL(origin).origin, Vary: "Origin", ...CORS };
}
