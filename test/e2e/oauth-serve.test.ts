/**
 * Sign-ins while `metatools serve` runs: a backend that needs a sign-in is
 * `needs_login` (doctor, search, run_tool) with the exact command while the
 * others serve; a sign-in in another process is picked up without a
 * restart; tokens are refreshed before expiry and on 401; a missing scope
 * is asked for again; a token for another resource is never accepted; and
 * no token shows anywhere.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { servers as fixtures } from "../helpers/harness.js";
import { startRedis } from "../helpers/redis.js";
import { startOAuthWorld, type OAuthWorld, type TokenEvent } from "../helpers/oauth/world.js";
import { eventually } from "../helpers/eventually.js";
import { fileMode, serve, signInSetup, tokenFile, type Serving, type SignInSetup } from "../helpers/signin.js";

let world: OAuthWorld | undefined;
let served: Serving | undefined;
afterEach(async () => {
  await served?.close();
  await world?.close();
  served = world = undefined;
});

const refreshes = (w: OAuthWorld) => w.events.filter((e): e is TokenEvent => e.kind === "token" && e.grant_type === "refresh_token");

/** No token the authorization server issued, and no client secret, in anything metatools printed or answered. */
function expectNoSecrets(w: OAuthWorld, setup: SignInSetup): void {
  const seen = setup.seen.join("\n");
  const secrets = [...w.issuedTokens(), ...w.clientSecrets()];
  expect(secrets.length).toBeGreaterThan(0);
  for (const secret of secrets) expect(seen.includes(secret), `a secret (${secret.slice(0, 6)}…) was shown`).toBe(false);
}

describe("signing in while metatools serves", () => {
  it("serves other backends while one needs a sign-in, names the command everywhere, and picks the sign-in up without a restart", async () => {
    world = await startOAuthWorld({ challengeScope: "notes:read" });
    const setup = signInSetup(world, { notes: {} });
    const config = JSON.parse(readFileSync(setup.config, "utf8"));
    config.mcpServers.local = fixtures.everything();
    writeFileSync(setup.config, JSON.stringify(config));
    const command = `metatools auth login notes --config ${setup.config}`;

    const before = await setup.cli(["doctor"]);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/^notes\s+http\s+needs_login\s+0/m);
    expect(before.stdout).toMatch(/^local\s+stdio\s+ready/m);
    expect(before.stdout).toContain(
      `✗ notes: needs_login: notes needs a sign-in (it answered HTTP 401)\n    → ${command} (a running metatools picks the sign-in up without a restart)`,
    );

    served = await serve(setup);
    const search = await served.search("echo the text back");
    expect(search.unavailable).toEqual([expect.objectContaining({ namespace: "notes", status: "needs_login", fix: `a person signs in: ${command}` })]);
    expect((search.hits as { id: string }[]).some((h) => h.id.startsWith("local:"))).toBe(true);
    const refused = await served.run("notes:echo", { text: "hi" });
    expect(refused).toMatchObject({ ok: false, error: { code: "needs_login" } });
    expect(refused.warning).toContain(command);

    const login = await setup.cli(["auth", "login", "notes"]);
    expect(login.code, login.stderr).toBe(0);
    const after = await eventually(
      () => served!.run("notes:echo", { text: "hi" }),
      (r) => r.ok === true,
    );
    expect(after).toMatchObject({ ok: true, result: "hi" });
    expect((await served.search("echo the text back")).unavailable).toBeUndefined();
    const healthy = await setup.cli(["doctor"]);
    expect(healthy.stdout).toMatch(/^notes\s+http\s+ready\s+2/m);
    expect(healthy.code).toBe(0);

    // A backend's reply quoting the token shows it redacted; the log, doctor and the CLI never show one.
    const whoami = await served.run("notes:whoami");
    expect(whoami.result).toBe("Bearer [redacted OAuth token of notes]");
    await setup.cli(["doctor", "--json"]);
    await setup.cli(["auth", "status"]);
    await served.close();
    served = undefined;
    expect(setup.seen.join("\n")).toContain("notes: ready with 2 tools");
    expectNoSecrets(world, setup);
    expect(fileMode(setup.tokenFile)).toBe(0o600);
  });

  it("asks for a missing scope after a 403 (step-up): the call says how, the next sign-in asks for it, the same server then runs it", async () => {
    world = await startOAuthWorld({ challengeScope: "notes:read", toolScopes: { write_note: "notes:write" } });
    const setup = signInSetup(world, { notes: {} });
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    served = await serve(setup);
    expect(await served.run("notes:echo", { text: "read works" })).toMatchObject({ ok: true });
    const refused = await served.run("notes:write_note", { text: "x" });
    expect(refused).toMatchObject({ ok: false, error: { code: "needs_login" } });
    expect((refused.error as { message: string }).message).toContain('it needs scope "notes:read notes:write", and the sign-in has "notes:read"');
    // Other tools keep working meanwhile.
    expect(await served.run("notes:echo", { text: "still" })).toMatchObject({ ok: true, result: "still" });
    expect((await setup.cli(["auth", "status"])).stdout).toContain('a call needs scope "notes:read notes:write"');

    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    const authorizations = world.events.filter((e) => e.kind === "authorize");
    expect(authorizations.at(-1)).toMatchObject({ params: { scope: "notes:read notes:write" } });
    expect(
      await eventually(
        () => served!.run("notes:write_note", { text: "x" }),
        (r) => r.ok === true,
      ),
    ).toMatchObject({ ok: true, result: "saved" });
    expect(tokenFile(setup).backends.notes?.requiredScope).toBeUndefined();
    expectNoSecrets(world, setup);
  });

  it("refreshes a token refused with 401, and one about to expire before sending it; a refused refresh means needs_login", async () => {
    world = await startOAuthWorld({ accessTokenTtlSec: 2 });
    const setup = signInSetup(world, { notes: {} });
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    served = await serve(setup);
    const signedIn = tokenFile(setup).backends.notes!;
    const first = signedIn.tokens!;
    // Within half its 2 s life of expiry: renewed before it is sent, with no 401 on the way. Waits only until the
    // code's own margin (half the lifetime, src/auth/signer.ts) is reached, often already passed while serve starts.
    const due = signedIn.expiresAt! - (first.expires_in! * 1000) / 2;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now() + 50)));
    const refused401 = () => world!.events.filter((e) => e.kind === "mcp" && e.status === 401).length;
    const before401 = refused401();
    expect(await served.run("notes:echo", { text: "a" })).toMatchObject({ ok: true });
    expect(refreshes(world).length).toBeGreaterThanOrEqual(1);
    expect(refused401()).toBe(before401);
    const renewed = tokenFile(setup).backends.notes!.tokens!;
    expect(renewed.access_token).not.toBe(first.access_token);
    expect(renewed.refresh_token).not.toBe(first.refresh_token);

    // Refused by the server before its time: renewed once, the call retried.
    world.expireAccessTokens();
    const count = refreshes(world).length;
    expect(await served.run("notes:echo", { text: "b" })).toMatchObject({ ok: true, result: "b" });
    expect(refreshes(world).length).toBe(count + 1);

    // The refresh token revoked: one refusal, no loop, and the backend waits for a sign-in.
    world.revokeRefreshTokens();
    world.expireAccessTokens();
    const failed = await served.run("notes:echo", { text: "c" });
    expect(failed).toMatchObject({ ok: false, error: { code: "needs_login" } });
    expect(refreshes(world).filter((e) => e.status !== 200).length).toBe(1);
    const search = await eventually(
      () => served!.search("echo"),
      (r) => Array.isArray(r.unavailable),
    );
    expect(search.unavailable).toEqual([expect.objectContaining({ namespace: "notes", status: "needs_login" })]);
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    expect(
      await eventually(
        () => served!.run("notes:echo", { text: "d" }),
        (r) => r.ok === true,
      ),
    ).toMatchObject({ ok: true, result: "d" });
    expectNoSecrets(world, setup);
  });

  it("never accepts a token for another resource: one stored for server A is refused by server B, and never sent to a URL it was not obtained for", async () => {
    world = await startOAuthWorld({ servers: 2 });
    const [a, b] = world.servers;
    const setup = signInSetup(world, { a: { index: 0 }, b: { index: 1 } });
    expect((await setup.cli(["auth", "login", "a"])).code).toBe(0);
    const stored = tokenFile(setup);
    const tokenA = stored.backends.a!.tokens!.access_token;
    // A's sign-in filed under b, as if for b's URL: B refuses the token (it was issued for A's resource).
    writeFileSync(
      setup.tokenFile,
      JSON.stringify({
        version: 1,
        backends: { ...stored.backends, b: { ...stored.backends.a, url: b!.url, tokens: { ...stored.backends.a!.tokens, refresh_token: undefined } } },
      }),
      { mode: 0o600 },
    );
    const doctor = await setup.cli(["doctor"]);
    expect(doctor.stdout).toMatch(/^a\s+http\s+ready/m);
    expect(doctor.stdout).toMatch(/^b\s+http\s+needs_login/m);
    expect(
      world.events
        .filter((e) => e.kind === "mcp" && e.server === 1 && e.authorization === `Bearer ${tokenA}`)
        .every((e) => e.kind === "mcp" && e.status === 401),
    ).toBe(true);

    // A sign-in made for another URL (the config moved b elsewhere) is not sent at all.
    writeFileSync(setup.tokenFile, JSON.stringify({ version: 1, backends: { ...stored.backends, b: { ...stored.backends.a, url: a!.url } } }), { mode: 0o600 });
    const mcpToB = () => world!.events.filter((e) => e.kind === "mcp" && e.server === 1);
    const seenBefore = mcpToB().length;
    const again = await setup.cli(["doctor"]);
    expect(again.stdout).toMatch(/^b\s+http\s+needs_login/m);
    const sent = mcpToB().slice(seenBefore);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((e) => e.kind === "mcp" && e.authorization === undefined)).toBe(true);
    expect((await setup.cli(["auth", "status", "b"])).stdout).toContain(`the sign-in is for ${a!.url}, not this URL`);
  });

  it("keeps sign-ins in the shared store when told to (replicas): no token file, and a running server picks a sign-in up from Redis", async () => {
    const redis = await startRedis();
    try {
      world = await startOAuthWorld({});
      const setup = signInSetup(world, { notes: {} });
      const config = JSON.parse(readFileSync(setup.config, "utf8"));
      config.metatools = { ...config.metatools, store: { url: redis.url }, auth: { storage: "store" } };
      writeFileSync(setup.config, JSON.stringify(config));
      served = await serve(setup);
      expect(await served.run("notes:echo", { text: "x" })).toMatchObject({ ok: false, error: { code: "needs_login" } });
      expect((await setup.cli(["auth", "login", "notes"])).stdout).toContain(`kept in ${redis.url}`);
      expect(existsSync(setup.tokenFile)).toBe(false);
      expect(
        await eventually(
          () => served!.run("notes:echo", { text: "shared" }),
          (r) => r.ok === true,
        ),
      ).toMatchObject({ ok: true, result: "shared" });
      expect((await setup.cli(["auth", "status", "--json"])).stdout).toContain('"status": "signed in"');
      await served.close();
      served = undefined;
      expectNoSecrets(world, setup);
    } finally {
      await redis.stop();
    }
  });

  it("two servers sharing a sign-in renew it once: neither spends a refresh token the other already used", async () => {
    world = await startOAuthWorld({});
    const setup = signInSetup(world, { notes: {} });
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    served = await serve(setup);
    const second = await serve(setup);
    try {
      expect(await served.run("notes:echo", { text: "1" })).toMatchObject({ ok: true });
      expect(await second.run("notes:echo", { text: "2" })).toMatchObject({ ok: true });
      for (let round = 0; round < 3; round++) {
        world.expireAccessTokens();
        const both = await Promise.all([served.run("notes:echo", { text: "a" }), second.run("notes:echo", { text: "b" })]);
        expect(both.map((r) => r.ok)).toEqual([true, true]);
      }
      expect(refreshes(world).filter((e) => e.status !== 200)).toEqual([]);
      expect(refreshes(world).length).toBeGreaterThanOrEqual(3);
    } finally {
      await second.close();
    }
  });

  it("keeps the token file from the code tools", async () => {
    world = await startOAuthWorld({});
    const setup = signInSetup(world, { notes: {} });
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    const config = JSON.parse(readFileSync(setup.config, "utf8"));
    config.metatools = { code: { root: "." } };
    writeFileSync(setup.config, JSON.stringify(config));
    const read = await setup.cli(["run", "code:read_file", "--args", '{"path":"metatools.tokens.json"}', "--json"]);
    expect(JSON.parse(read.stdout)).toMatchObject({ ok: false });
    const grep = await setup.cli(["run", "code:grep", "--args", '{"pattern":"refresh_token"}', "--json"]);
    expect(grep.stdout).not.toContain("metatools.tokens.json");
    expectNoSecrets(world, setup);
  });

  it("signs out: the running server stops using the tokens at once and says how to sign in again", async () => {
    world = await startOAuthWorld({});
    const setup = signInSetup(world, { notes: {} });
    expect((await setup.cli(["auth", "login", "notes"])).code).toBe(0);
    served = await serve(setup);
    expect(await served.run("notes:echo", { text: "in" })).toMatchObject({ ok: true });
    const out = await setup.cli(["auth", "logout", "notes"]);
    expect(out.stdout).toContain("signed out of notes");
    expect(tokenFile(setup).backends.notes).toBeUndefined();
    expect(await served.run("notes:echo", { text: "out" })).toMatchObject({ ok: false, error: { code: "needs_login" } });
    expectNoSecrets(world, setup);
  });
});
