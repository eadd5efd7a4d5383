/**
 * `metatools auth login` against a real authorization server and protected
 * MCP server on 127.0.0.1 (test/helpers/oauth), the browser step played by
 * a script given as $BROWSER: one test per way of identifying the client,
 * per source of scope, per metadata layout, and the refusals.
 */
import { existsSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { Credentials, SignIn } from "../../src/auth/credentials.js";
import { login } from "../../src/auth/login.js";
import type { SignInSpec } from "../../src/config/resolved.js";
import { CLIENT_AUTH_METHODS } from "../helpers/oauth/types.js";
import { type AuthorizeEvent, type OAuthWorld, type RegisterEvent, type TokenEvent, startOAuthWorld, type WorldOptions } from "../helpers/oauth/world.js";
import { fileMode, signInSetup, tokenFile, type SignInSetup } from "../helpers/signin.js";

let world: OAuthWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function setUp(options: WorldOptions, oauth?: Record<string, unknown>): Promise<{ world: OAuthWorld; setup: SignInSetup }> {
  world = await startOAuthWorld(options);
  return { world, setup: signInSetup(world, { notes: { ...(oauth ? { oauth } : {}) } }) };
}

const of = <K extends string>(w: OAuthWorld, kind: K) =>
  w.events.filter((e) => e.kind === kind) as (K extends "authorize" ? AuthorizeEvent : K extends "token" ? TokenEvent : RegisterEvent)[];

/** Signs in through the CLI, then proves the tokens work by running a tool. */
async function signInAndRun(setup: SignInSetup): Promise<void> {
  const login = await setup.cli(["auth", "login", "notes"]);
  expect(login.stderr).toContain("a browser was opened ($BROWSER)");
  expect(login.code, login.stderr).toBe(0);
  expect(login.stdout).toMatch(/^signed in to notes \(/);
  expect(fileMode(setup.tokenFile)).toBe(0o600);
  const run = await setup.cli(["run", "notes:echo", "--args", '{"text":"hello"}']);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain("hello");
}

describe("metatools auth login", () => {
  it("registers itself (dynamic client registration), then authorization code with PKCE S256, state and the resource indicator", async () => {
    const { world, setup } = await setUp({});
    await signInAndRun(setup);
    const [registration] = of(world, "register");
    expect(registration?.status).toBe(201);
    expect(registration?.request).toMatchObject({
      client_name: "metatools",
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    expect((registration?.request as { redirect_uris: string[] }).redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const [authorize] = of(world, "authorize");
    expect(authorize?.outcome).toBe("code");
    expect(authorize?.params).toMatchObject({
      response_type: "code",
      code_challenge_method: "S256",
      client_id: registration!.client_id,
      resource: world.servers[0]!.resource,
    });
    expect(authorize?.params.state).toMatch(/^[\w-]{20,}$/);
    expect(of(world, "token").find((t) => t.grant_type === "authorization_code")).toMatchObject({
      status: 200,
      auth_method: "none",
      resource: world.servers[0]!.resource,
    });
    // A second sign-in reuses the registered client.
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    expect(of(world, "register")).toHaveLength(1);
    expect(tokenFile(setup).backends.notes?.client).toMatchObject({ client_id: registration!.client_id });
  });

  it("names itself by a Client ID Metadata Document URL where the server supports it, registering nothing", async () => {
    world = await startOAuthWorld({ cimd: true, dcr: false });
    const setup = signInSetup(world, { notes: { oauth: { clientMetadataUrl: world.cimdUrl } } });
    await signInAndRun(setup);
    expect(of(world, "register")).toHaveLength(0);
    expect(of(world, "authorize")[0]?.params.client_id).toBe(world.cimdUrl);
    expect(world.events.some((e) => e.kind === "cimd-fetch" && e.ok)).toBe(true);
    expect(tokenFile(setup).backends.notes?.client).toMatchObject({ client_id: world.cimdUrl });
  });

  it.each(CLIENT_AUTH_METHODS)("uses a pre-registered client authenticating with %s, and never stores its secret", async (method) => {
    const secret = method === "none" ? undefined : `s3cret-${method}-0123456789`;
    const { world, setup } = await setUp(
      { dcr: false, preRegistered: [{ client_id: "pre-client", ...(secret ? { client_secret: secret } : {}), token_endpoint_auth_method: method }] },
      { clientId: "pre-client", ...(secret ? { clientSecret: secret } : {}), tokenEndpointAuthMethod: method },
    );
    await signInAndRun(setup);
    expect(
      of(world, "token")
        .filter((t) => t.status === 200)
        .map((t) => t.auth_method),
    ).toEqual([method]);
    expect(of(world, "authorize")[0]?.params.client_id).toBe("pre-client");
    const stored = JSON.stringify(tokenFile(setup));
    expect(stored).not.toContain("pre-client");
    if (secret) expect(stored).not.toContain(secret);
    expect(setup.seen.join("\n")).not.toContain(secret ?? "never-printed");
  });

  it("signs in to a server that lets the handshake through and asks at the next request", async () => {
    const { world, setup } = await setUp({ openInitialize: true });
    await signInAndRun(setup);
    expect(of(world, "authorize")).toHaveLength(1);
  });

  it("asks for the scope the server's 401 names in WWW-Authenticate", async () => {
    const { world, setup } = await setUp({ challengeScope: "notes:read", scopesSupported: ["notes:read", "notes:write", "admin"] });
    await signInAndRun(setup);
    expect(of(world, "authorize")[0]?.params.scope).toBe("notes:read");
    expect(tokenFile(setup).backends.notes?.tokens?.scope).toBe("notes:read");
  });

  it("asks for the resource metadata's scopes_supported when the 401 names none", async () => {
    const { world, setup } = await setUp({ scopesSupported: ["notes:read", "notes:write"] });
    await signInAndRun(setup);
    expect(of(world, "authorize")[0]?.params.scope).toBe("notes:read notes:write");
  });

  it("finds a 2025-03-26 server's metadata at its own root (no protected-resource metadata)", async () => {
    const { world, setup } = await setUp({ spec: "2025-03-26" });
    await signInAndRun(setup);
    const origin = new URL(world.servers[0]!.url).origin;
    expect(
      world.events.filter((e) => e.kind === "discovery" && e.url.includes("oauth-protected-resource")).every((e) => e.kind === "discovery" && e.status === 404),
    ).toBe(true);
    expect(world.events).toContainEqual({ kind: "discovery", url: `${origin}/.well-known/oauth-authorization-server`, status: 200 });
    expect(of(world, "authorize")[0]?.issuer).toBe(origin);
  });

  it("finds root protected-resource metadata, and an authorization server that publishes OpenID discovery only", async () => {
    const { world, setup } = await setUp({ prmLocation: "root", oidcOnly: true });
    await signInAndRun(setup);
    expect(world.events.some((e) => e.kind === "discovery" && e.url.endsWith("/.well-known/openid-configuration") && e.status === 200)).toBe(true);
  });

  it("refuses an answer whose state is not the sign-in's: its code is never exchanged, nothing is stored, the sign-in waits for the right one", async () => {
    const { world, setup } = await setUp({});
    const login = await setup.cli(["auth", "login", "notes", "--timeout", "3"], { FAKE_BROWSER_STATE: "forged-state-value" });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain("an answer came back with a state that is not this sign-in's");
    expect(login.stderr).toContain("no answer from the browser within 3 s; 1 answer with a state not this sign-in's came and was refused");
    expect(of(world, "authorize")[0]?.outcome).toBe("code");
    expect(of(world, "token")).toHaveLength(0);
    const status = await setup.cli(["auth", "status", "--json"]);
    expect(JSON.parse(status.stdout).backends[0]).toMatchObject({ backend: "notes", status: "not signed in" });
  });

  it("says so when the person refuses in the browser", async () => {
    const { setup } = await setUp({});
    const login = await setup.cli(["auth", "login", "notes"], { FAKE_BROWSER_DENY: "1" });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain("the authorization server refused the sign-in: access_denied");
  });
});

/** What a browser does with the authorization URL: follows it to the loopback callback (in-process sign-ins). */
async function browse(url: URL): Promise<void> {
  const page = await fetch(url, { redirect: "manual" });
  await page.body?.cancel();
  const location = page.headers.get("location");
  if (location) await (await fetch(location)).text();
}

/** `login()` run in this process against the world's first server, for the error's code. */
async function signInHere(w: OAuthWorld): Promise<{ code?: string; message?: string; stored: Map<string, SignIn> }> {
  const stored = new Map<string, SignIn>();
  const credentials: Credentials = {
    where: "memory",
    read: async (ns) => stored.get(ns),
    update: async (ns, change) => {
      const next = change(stored.get(ns));
      if (next) stored.set(ns, next);
      else stored.delete(ns);
      return next;
    },
    exclusive: (ns, _holdMs, work) => work({ read: async () => stored.get(ns), write: (change) => credentials.update(ns, change) }),
    watch: () => () => {},
    close: async () => {},
  };
  const spec = { namespace: "notes", url: w.servers[0]!.url, kind: "http", headers: {}, oauth: {} } as unknown as SignInSpec;
  try {
    await login(spec, { credentials, open: browse, say: () => {}, secret: () => {}, timeoutMs: 5000 });
    return { stored };
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message, stored };
  }
}

describe("the authorization response's issuer (RFC 9207) and the authorization server's identity", () => {
  it("refuses an answer whose iss names another server: the code is never redeemed, nothing is stored", async () => {
    const { world, setup } = await setUp({ issResponse: "wrong" });
    const login = await setup.cli(["auth", "login", "notes"]);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(`not from "${world.issuer}", the authorization server this sign-in was sent to (RFC 9207`);
    expect(login.stderr).toContain("https://mix-up.attacker.example");
    expect(of(world, "authorize")[0]?.outcome).toBe("code");
    expect(of(world, "token")).toHaveLength(0);
    expect(existsSync(setup.tokenFile)).toBe(false);
    const here = await signInHere(world);
    expect(here.code).toBe("oauth_issuer_mismatch");
    expect(here.stored.size).toBe(0);
    expect(of(world, "token")).toHaveLength(0);
  });

  it("refuses an answer without iss from a server that says it always sends one", async () => {
    const { world, setup } = await setUp({ issResponse: "missing" });
    const login = await setup.cli(["auth", "login", "notes"]);
    expect(login.code).toBe(1);
    expect(login.stderr).toContain("the browser came back without the `iss` parameter");
    expect(of(world, "token")).toHaveLength(0);
    expect(existsSync(setup.tokenFile)).toBe(false);
    expect((await signInHere(world)).code).toBe("oauth_issuer_mismatch");
  });

  it("takes an answer without iss from a server that does not promise one, but not one naming another server", async () => {
    const { setup } = await setUp({ issParameterSupported: false, issResponse: "missing" });
    await signInAndRun(setup);
    await world!.close();
    world = await startOAuthWorld({ issParameterSupported: false, issResponse: "wrong" });
    const here = await signInHere(world);
    expect(here.code).toBe("oauth_issuer_mismatch");
    expect(of(world, "token")).toHaveLength(0);
  });

  it("takes the right iss, registers as a native application, and stamps the client and tokens with their issuer", async () => {
    const { world, setup } = await setUp({});
    await signInAndRun(setup);
    expect(of(world, "register")[0]?.request).toMatchObject({ application_type: "native", redirect_uris: [expect.stringMatching(/^http:\/\/127\.0\.0\.1:/)] });
    const stored = tokenFile(setup).backends.notes!;
    expect(stored.client).toMatchObject({ issuer: world.issuer });
    expect(stored.tokens).toMatchObject({ issuer: world.issuer });
  });

  it("never sends what issuer A gave to issuer B when the backend moves: a new sign-in is asked for, and registers with B", async () => {
    const { world, setup } = await setUp({ authorizationServers: 2 });
    const [a, b] = world.issuers as [string, string];
    await signInAndRun(setup);
    const first = tokenFile(setup).backends.notes!;
    const clientA = (first.client as { client_id: string }).client_id;
    world.useAuthorizationServer(1);
    const refused = await setup.cli(["run", "notes:echo", "--args", '{"text":"hello"}']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain(`its authorization server is now ${b}, not ${a}, which the stored sign-in came from`);
    const atB = () => world.events.filter((e) => (e.kind === "token" || e.kind === "authorize" || e.kind === "register") && e.issuer === b);
    expect(atB()).toHaveLength(0);
    const again = await setup.cli(["auth", "login", "notes"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`the backend's authorization server is now ${b}, not ${a}`);
    const seenAtB = atB();
    expect(seenAtB.map((e) => e.kind)).toEqual(["register", "authorize", "token"]);
    const clientB = (seenAtB[0] as RegisterEvent).client_id!;
    expect(clientB).not.toBe(clientA);
    expect(JSON.stringify(seenAtB)).not.toContain(clientA);
    expect(JSON.stringify(seenAtB)).not.toContain(first.tokens!.refresh_token!);
    const second = tokenFile(setup).backends.notes!;
    expect(second.client).toMatchObject({ client_id: clientB, issuer: b });
    expect(second.tokens).toMatchObject({ issuer: b });
    const run = await setup.cli(["run", "notes:echo", "--args", '{"text":"hello"}']);
    expect(run.code, run.stderr).toBe(0);
  });

  it("prefers a Client ID Metadata Document to registering, where the server offers both", async () => {
    world = await startOAuthWorld({ cimd: true });
    const setup = signInSetup(world, { notes: { oauth: { clientMetadataUrl: world.cimdUrl } } });
    await signInAndRun(setup);
    expect(of(world, "register")).toHaveLength(0);
    expect(of(world, "authorize")[0]?.params.client_id).toBe(world.cimdUrl);
    expect(tokenFile(setup).backends.notes?.client).toMatchObject({ client_id: world.cimdUrl, issuer: world.issuer });
  });

  it("keeps a sign-in stored before issuers were recorded working with its server, and records the issuer at the next refresh", async () => {
    const { world, setup } = await setUp({ accessTokenTtlSec: 1 });
    await signInAndRun(setup);
    const file = tokenFile(setup);
    const record = file.backends.notes! as unknown as { client: Record<string, unknown>; tokens: Record<string, unknown>; expiresAt?: number };
    delete record.client.issuer;
    delete record.tokens.issuer;
    // The access token as expired (its lifetime is a second): the next run refreshes it, with no wait for the clock.
    record.expiresAt = Date.now() - 1000;
    writeFileSync(setup.tokenFile, JSON.stringify(file));
    const refreshes = () => of(world, "token").filter((t) => t.grant_type === "refresh_token" && t.status === 200).length;
    const before = refreshes();
    const run = await setup.cli(["run", "notes:echo", "--args", '{"text":"hello"}']);
    expect(run.code, run.stderr).toBe(0);
    expect(refreshes()).toBeGreaterThan(before);
    const renewed = tokenFile(setup).backends.notes!;
    expect(renewed.tokens).toMatchObject({ issuer: world.issuer });
    expect(renewed.client).toMatchObject({ issuer: world.issuer });
  });
});
