/**
 * The `metatools.http` section: how `metatools serve --http` admits
 * requests (tokens, origins, body size, rate) and manages sessions: its
 * schema and what its resolved form computes (the defaults are in
 * defaults.ts, applied by fill.ts).
 */
import * as z from "zod";
import { ConfigError } from "../util/errors.js";
import { bytesWords, defaultBurst, DEFAULTS, msWords } from "./defaults.js";
import type { Filled, Replace } from "./fill.js";

const bearerToken = z.string().min(16, "a bearer token needs at least 16 characters");

export const httpSectionSchema = z
  .object({
    tokens: z
      .array(
        z.union([
          bearerToken,
          z
            .object({
              token: bearerToken,
              profile: z.string().min(1).optional().describe("The profile (metatools.profiles) this token's calls get; it may use no other."),
              name: z
                .string()
                .regex(/^[A-Za-z0-9_.-]{1,40}$/, "a name is 1-40 letters, digits, _ . or -")
                .optional()
                .describe(
                  "What the audit trail and logs call this token's caller (`token:@NAME`) instead of a hash of the token; no two tokens may share one.",
                ),
            })
            .strict(),
        ]),
      )
      .optional()
      .describe(
        "Bearer tokens accepted on /mcp (`Authorization: Bearer …`); write them as ${ENV} references. `{token, profile, name}` gives a token one profile, and a name the audit trail shows. METATOOLS_TOKENS (comma-separated) adds more, with the default profile.",
      ),
    allowedOrigins: z
      .array(z.string().url())
      .optional()
      .describe(
        "Browser origins allowed to call /mcp, e.g. https://app.example.com. Requests with another Origin get 403; requests without one (non-browser clients) pass. Loopback origins are always allowed on a loopback bind.",
      ),
    maxBodyBytes: z
      .number()
      .int()
      .min(1024)
      .max(64 << 20)
      .optional()
      .describe(`Largest request body; bigger ones get 413. Default ${bytesWords(DEFAULTS.http.maxBodyBytes)}.`),
    bodyTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(600_000)
      .optional()
      .describe(
        `How long a client may take to send a request's headers, and then its body; past it, 408 and the connection is closed, so a slow sender cannot hold connections open. Responses are not bounded by it: event streams and long calls go on. Raise it only for large bodies over slow links. Default ${DEFAULTS.http.bodyTimeoutMs}.`,
      ),
    rateLimit: z
      .object({
        perMinute: z
          .number()
          .int()
          .min(1)
          .describe(
            `Requests per minute per token (per client address without tokens). Default ${DEFAULTS.http.rateLimit.perMinute} when rateLimit is left out.`,
          ),
        burst: z.number().int().min(1).optional().describe("Requests allowed at once before the rate applies. Default perMinute / 6, at least 10."),
      })
      .strict()
      .optional()
      .describe(`Per-token rate limit; over it, 429 with Retry-After. Default ${DEFAULTS.http.rateLimit.perMinute} per minute.`),
    sessionIdleMs: z
      .number()
      .int()
      .min(1000)
      .optional()
      .describe(
        `A session with nothing open this long is closed: no call in flight, no event stream connected, counted from when the last one ended. Default ${msWords(DEFAULTS.http.sessionIdleMs)}.`,
      ),
    maxSessions: z.number().int().min(1).optional().describe(`Open sessions at most; an initialize beyond it gets 503. Default ${DEFAULTS.http.maxSessions}.`),
    maxSessionsPerToken: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Open sessions one token may hold; an initialize beyond it gets 429. Default ${DEFAULTS.http.maxSessionsPerToken}.`),
    shutdownGraceMs: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        `On SIGTERM, how long in-flight requests may finish before backends close; the process is gone 2.5 s after that whatever is left (backends get 2 s to stop). Default ${DEFAULTS.http.shutdownGraceMs}.`,
      ),
  })
  .strict();

export type HttpSection = z.infer<typeof httpSectionSchema>;

/** The section with its defaults (fill.ts). */
type HttpFilled = Filled<HttpSection, typeof DEFAULTS.http>;

/** tokens: the file's and METATOOLS_TOKENS', once each; allowedOrigins: as origins (no path); rateLimit.burst: derived when unset. */
export type HttpConfig = Replace<
  HttpFilled,
  {
    tokens: string[];
    /** The profile each token names (by index in `tokens`); undefined: the default profile, or one the URL path names. */
    tokenProfiles: (string | undefined)[];
    /** Each token's name (by index in `tokens`); undefined: its caller is known by a hash of it. */
    tokenNames: (string | undefined)[];
    rateLimit: { perMinute: number; burst: number };
  }
>;

export function resolveHttp(section: HttpFilled, env: NodeJS.ProcessEnv): HttpConfig {
  const fromEnv = (env.METATOOLS_TOKENS ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (fromEnv.some((t) => t.length < 16)) throw new ConfigError("METATOOLS_TOKENS", "", "a bearer token needs at least 16 characters");
  const { tokens, allowedOrigins, rateLimit, ...rest } = section;
  const profiles = new Map<string, string | undefined>();
  const names = new Map<string, string | undefined>();
  const named = new Set<string>();
  for (const [i, entry] of [...tokens, ...fromEnv].entries()) {
    const { token, profile, name } = typeof entry === "string" ? { token: entry, profile: undefined, name: undefined } : entry;
    if (profiles.has(token) && profiles.get(token) !== profile)
      throw new ConfigError("metatools.http", `tokens.${i}`, "the same token is listed twice with different profiles");
    if (name !== undefined && named.has(name) && names.get(token) !== name)
      throw new ConfigError("metatools.http", `tokens.${i}.name`, `"${name}" names another token too: each caller's name is its own`);
    profiles.set(token, profile);
    if (name !== undefined) named.add(name);
    names.set(token, name ?? names.get(token));
  }
  return {
    tokens: [...profiles.keys()],
    tokenProfiles: [...profiles.values()],
    tokenNames: [...profiles.keys()].map((token) => names.get(token)),
    allowedOrigins: allowedOrigins.map((o) => new URL(o).origin),
    ...rest,
    rateLimit: { perMinute: rateLimit.perMinute, burst: rateLimit.burst ?? defaultBurst(rateLimit.perMinute) },
  };
}
