/**
 * Property-based fuzzing (fast-check) of the OAuth code paths against a
 * hostile server (test/fixtures/oauth/hostile-server.ts, real HTTP on
 * 127.0.0.1): one route of the flow answers with random JSON, a spec
 * document with one field made wrong, garbage text, a wrong content type,
 * deep nesting, an endless body, or URLs that are not URLs or not http(s).
 * The sign-in (`auth login`'s `login()`) and the serve-time token refresh
 * (`TokenSigner`) must each end, within their deadline, in success or in
 * a MetatoolsError with a known code and a one-line message: never another
 * error, a stack, a crash or a hang. FUZZ_RUNS sets the inputs per property
 * (default 200); the outcomes are counted and printed.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Credentials, SignIn } from "../../../src/auth/credentials.js";
import { login } from "../../../src/auth/login.js";
import type { SignInSpec } from "../../../src/config/resolved.js";
import { TokenSigner } from "../../../src/auth/signer.js";
import { MetatoolsError } from "../../../src/util/errors.js";
import { startHostileOAuthServer, type Answer, type HostileOAuthServer, type Route } from "../../fixtures/oauth/hostile-server.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** Longer than any run may take: the flow's own deadlines are shorter. */
const RUN_DEADLINE_MS = 20_000;
const KNOWN = new Set([
  "oauth_answer_too_large",
  "oauth_unsafe_url",
  "oauth_resource_mismatch",
  "oauth_bad_answer",
  "oauth_refused",
  "oauth_unreachable",
  "oauth_issuer_mismatch",
  "signin_failed",
  "signin_timeout",
  "needs_login",
]);
const counts: Record<string, Record<string, number>> = { login: {}, refresh: {} };
/** One message per code, printed at the end to show what a person reads. */
const examples = new Map<string, string>();
let server: HostileOAuthServer;

beforeAll(async () => {
  server = await startHostileOAuthServer();
});
afterAll(async () => {
  await server?.close();
  for (const [what, by] of Object.entries(counts))
    process.stderr.write(
      `fuzz-remote ${what}: ${Object.values(by).reduce((a, b) => a + b, 0)} inputs: ${Object.entries(by)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}\n`,
    );
  for (const [code, message] of examples) process.stderr.write(`  e.g. ${code}: ${message}\n`);
});

const BAD_URLS = [
  "javascript:alert(1)",
  "data:text/plain,x",
  "file:///etc/passwd",
  "ftp://127.0.0.1/x",
  "vbscript:x",
  "not a url",
  "http://",
  "https://[::1",
  "http://127.0.0.1:1/closed",
  "https://elsewhere.example/mcp",
  "",
];
const URL_FIELDS = ["issuer", "authorization_endpoint", "token_endpoint", "registration_endpoint", "resource", "authorization_servers", "redirect_uris"];

/** A hostile answer, for a route whose good answer is `good` (a function of the origin). */
const answer: fc.Arbitrary<(good: Record<string, unknown>) => Answer> = fc
  .record({
    status: fc.constantFrom(200, 200, 200, 201, 302, 400, 401, 404, 500, 503),
    contentType: fc.constantFrom("application/json", "application/json", "text/html", "application/x-www-form-urlencoded", "text/event-stream", ""),
    body: fc.oneof(
      fc.jsonValue().map((v) => () => ({ json: v ?? null }) as Answer),
      fc.tuple(fc.constantFrom(...URL_FIELDS), fc.oneof(fc.constantFrom(...BAD_URLS), fc.jsonValue())).map(
        ([field, value]) =>
          (good: Record<string, unknown>) =>
            ({ json: { ...good, [field]: Array.isArray(good[field]) || field === "authorization_servers" ? [value] : value } }) as Answer,
      ),
      fc.string({ maxLength: 300 }).map((text) => () => ({ text }) as Answer),
      fc.integer({ min: 1, max: 200_000 }).map((n) => () => ({ text: `${"[".repeat(n)}${"]".repeat(n)}` }) as Answer),
      fc.integer({ min: 2, max: 6 }).map((mib) => () => ({ stream: { bytes: mib * 2 ** 20, head: '{"access_token":"' } }) as Answer),
      fc.constant(() => ({ text: `{"error":"${"x".repeat(5000)}","error_description":"${"y\\n".repeat(2000)}"}` }) as Answer),
    ),
  })
  .map(({ status, contentType, body }) => (good) => {
    const made = body(good);
    return { ...made, status, headers: { ...(contentType ? { "content-type": contentType } : {}), ...(status === 302 ? { location: "/elsewhere" } : {}) } };
  });

/** The good answer of each route, as JSON, for answers that change one field of it. */
function goodJson(route: Route, origin: string): Record<string, unknown> {
  if (route === "prm") return { resource: `${origin}/mcp`, authorization_servers: [origin] };
  if (route === "metadata")
    return { issuer: origin, authorization_endpoint: `${origin}/authorize`, token_endpoint: `${origin}/token`, response_types_supported: ["code"] };
  if (route === "register") return { client_id: "hostile-client", redirect_uris: ["http://127.0.0.1:1/callback"] };
  return { access_token: "a", token_type: "Bearer", expires_in: 60, refresh_token: "r" };
}

/** Credentials in memory, one record per namespace. */
function memoryCredentials(initial: Record<string, SignIn> = {}): Credentials {
  const records = new Map(Object.entries(initial));
  const update = async (ns: string, change: (c: SignIn | undefined) => SignIn | undefined) => {
    const next = change(records.get(ns));
    if (next) records.set(ns, { ...next, updatedAt: Date.now() });
    else records.delete(ns);
    return records.get(ns);
  };
  return {
    where: "memory",
    read: async (ns) => records.get(ns),
    update,
    exclusive: (ns, _ms, work) => work({ read: async () => records.get(ns), write: (change) => update(ns, change) }),
    watch: () => () => {},
    close: async () => {},
  };
}

/** Succeeds, or fails with a known code and one clear line; within the deadline either way. Returns the outcome's name. */
async function outcome(what: string, run: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("hung")), RUN_DEADLINE_MS)));
  try {
    await Promise.race([run(), hang]);
    return "success";
  } catch (error) {
    expect(error, String(error)).toBeInstanceOf(MetatoolsError);
    const { code, message } = error as MetatoolsError;
    expect(KNOWN.has(code), `unknown code ${code}: ${message}`).toBe(true);
    expect(message).not.toMatch(/\n|\bat .*\(.*:\d+:\d+\)/);
    expect(message.length).toBeLessThan(1500);
    if (!examples.has(`${what} ${code}`)) examples.set(`${what} ${code}`, message);
    return code;
  } finally {
    clearTimeout(timer);
  }
}

/** What a browser does with the authorization URL: follows it once, and takes a redirect back to the loopback. */
async function browse(url: URL): Promise<void> {
  if (url.protocol !== "http:") return;
  const page = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  const location = page?.headers.get("location");
  await page?.body?.cancel().catch(() => {});
  if (location?.startsWith("http://127.0.0.1:"))
    await fetch(location, { signal: AbortSignal.timeout(2000) })
      .then((r) => r.body?.cancel())
      .catch(() => {});
}

describe("OAuth code paths meet hostile answers", () => {
  it("auth login: an answer that never comes ends at the deadline, saying so", async () => {
    for (const route of ["metadata", "register", "token"] as const) {
      server.set(route, { hang: true });
      try {
        const spec = { namespace: "notes", kind: "http", url: server.mcpUrl, headers: {}, oauth: {} } as unknown as SignInSpec;
        const signal = AbortSignal.timeout(1000);
        const result = await outcome("login", () =>
          login(spec, { credentials: memoryCredentials(), open: browse, say: () => {}, secret: () => {}, timeoutMs: 5000, signal }),
        );
        expect(result).toBe("oauth_unreachable");
        expect(examples.get("login oauth_unreachable")).toMatch(/^notes: signing in: http:\/\/127\.0\.0\.1:\d+\/\S+ did not answer in time$/);
      } finally {
        server.set(route, undefined);
      }
    }
  });

  it("auth login: success, or a clear typed error, for any one hostile answer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Route>("resource", "prm", "metadata", "register", "authorize", "token"), answer, async (route, hostile) => {
        server.set(route, (origin) => hostile(goodJson(route, origin)));
        try {
          const spec = { namespace: "notes", kind: "http", url: server.mcpUrl, headers: {}, oauth: {} } as unknown as SignInSpec;
          const result = await outcome("login", () =>
            login(spec, { credentials: memoryCredentials(), open: browse, say: () => {}, secret: () => {}, timeoutMs: 250 }),
          );
          counts.login![`${route} → ${result}`] = (counts.login![`${route} → ${result}`] ?? 0) + 1;
        } finally {
          server.set(route, undefined);
        }
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it("serve's token refresh: a clear typed error (needs_login or why the refresh failed), never a raw one", async () => {
    await fc.assert(
      fc.asyncProperty(
        answer,
        // One time in four the stored token endpoint itself is bad.
        fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...BAD_URLS) }),
        async (hostile, badEndpoint) => {
          server.set("token", (origin) => hostile(goodJson("token", origin)));
          try {
            const origin = server.origin;
            const signIn: SignIn = {
              url: server.mcpUrl,
              discovery: {
                authorizationServerUrl: origin,
                authorizationServerMetadata: {
                  issuer: origin,
                  authorization_endpoint: `${origin}/authorize`,
                  token_endpoint: badEndpoint ?? `${origin}/token`,
                  response_types_supported: ["code"],
                },
              },
              client: { client_id: "hostile-client", redirect_uris: [] },
              tokens: { access_token: "expired", token_type: "Bearer", refresh_token: "refresh", expires_in: 60 },
              expiresAt: Date.now() - 1000,
              updatedAt: Date.now(),
            };
            const spec = { namespace: "notes", kind: "http", url: server.mcpUrl, headers: {}, oauth: {} } as unknown as SignInSpec;
            const session = new TokenSigner(spec, memoryCredentials({ notes: signIn }), { secret: () => {}, loginCommand: "metatools auth login notes" });
            const result = await outcome("refresh", async () => {
              const response = await session.fetch(fetch)(server.mcpUrl, { method: "POST", body: "{}" });
              await response.body?.cancel();
            });
            counts.refresh![result] = (counts.refresh![result] ?? 0) + 1;
            // The protected resource never accepts a token: the request cannot succeed.
            expect(result).not.toBe("success");
          } finally {
            server.set("token", undefined);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 600_000);
});
