/**
 * The sign-in pieces on their own: the token file (0600, whole writes under
 * a lock, watched), the browser opener ($BROWSER conventions, the URL never
 * read by a shell), the callback listener, and the config that drives them.
 */
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openUrl } from "../../../src/auth/browser.js";
import { FileCredentials } from "../../../src/auth/credentials.js";
import { listenLoopback, SignInError } from "../../../src/auth/loopback.js";
import { parseConfig } from "../../../src/config/load.js";
import { convertServers } from "../../../src/cli/init/convert.js";
import { GrowingRedactor } from "../../../src/util/redact.js";
import { tempDir } from "../../helpers/harness.js";

const record = (n: number) => ({ url: `https://example.test/${n}`, tokens: { access_token: `token-${n}-abcdef`, token_type: "Bearer" }, updatedAt: 0 });

describe("the token file", () => {
  it("is written 0600, whole, and keeps every one of many concurrent updates", async () => {
    const file = join(tempDir(), "nested", "metatools.tokens.json");
    const a = new FileCredentials(file);
    const b = new FileCredentials(file);
    await Promise.all(Array.from({ length: 20 }, (_, n) => (n % 2 ? a : b).update(`ns${n}`, () => record(n))));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(Object.keys(stored.backends).sort()).toEqual(Array.from({ length: 20 }, (_, n) => `ns${n}`).sort());
    expect(existsSync(`${file}.lock`)).toBe(false);
    expect((await b.read("ns3"))?.tokens?.access_token).toBe("token-3-abcdef");
  });

  it("narrows a file others can read to its owner, and names the file when it is not JSON", async () => {
    const file = join(tempDir(), "tokens.json");
    writeFileSync(file, JSON.stringify({ version: 1, backends: { x: record(1) } }), { mode: 0o644 });
    chmodSync(file, 0o644);
    const store = new FileCredentials(file);
    expect((await store.read("x"))?.url).toBe("https://example.test/1");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, "{ half written");
    await expect(store.read("x")).rejects.toThrow(`the token file ${file} is not valid JSON`);
  });

  it("tells a watcher when another process changes its backend's record, not another backend's", async () => {
    const file = join(tempDir(), "tokens.json");
    const watcher = new FileCredentials(file);
    const writer = new FileCredentials(file);
    await writer.update("other", () => record(0));
    let calls = 0;
    let otherCalls = 0;
    const stop = watcher.watch("mine", () => calls++);
    // The same watcher also follows "other": once that listener fires, the watcher has looked at the change
    // (one look calls every namespace's listeners), so "mine" not being called is a result, not a matter of waiting long enough.
    const stopOther = watcher.watch("other", () => otherCalls++);
    const until = async (done: () => boolean, ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    // The file watcher takes its first look asynchronously; a change made before that look is its starting point,
    // never reported. So "other" is changed again until the watcher reports it (the first time, nearly always).
    for (let n = 1; otherCalls === 0 && n <= 5; n++) {
      await writer.update("other", () => record(n));
      await until(() => otherCalls > 0, 2500);
    }
    expect(otherCalls).toBeGreaterThan(0);
    expect(calls).toBe(0);
    const seenOther = otherCalls;
    await writer.update("mine", () => record(9));
    await until(() => calls > 0, 5000);
    expect(calls).toBe(1);
    expect(otherCalls).toBe(seenOther);
    stopOther();
    stop();
    await watcher.close();
  });
});

describe("opening the browser", () => {
  it("runs $BROWSER with the URL as one argument, never read by a shell, and falls through a command that is not found", async () => {
    const dir = tempDir();
    const out = join(dir, "opened.txt");
    const script = join(dir, "browser.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > '${out}'\n`, { mode: 0o755 });
    const url = "https://auth.example/authorize?a=1&b=$(touch pwned)`id`;x='y'";
    expect(await openUrl(url, { BROWSER: `no-such-browser-command:${script} --new-tab %s` })).toBe("browser");
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(readFileSync(out, "utf8")).toBe(`--new-tab\n${url}\n`);
    expect(existsSync(join(process.cwd(), "pwned"))).toBe(false);
  });

  it("opens web pages only: a file or another scheme from a server's metadata is never handed to a browser", async () => {
    const dir = tempDir();
    const out = join(dir, "opened.txt");
    const script = join(dir, "browser.sh");
    writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$@" > '${out}'\n`, { mode: 0o755 });
    for (const url of ["file:///etc/passwd", "smb://host/share", "javascript:alert(1)", "http://attacker.example/authorize"])
      expect(await openUrl(url, { BROWSER: script })).toBe("none");
    expect(existsSync(out)).toBe(false);
    expect(await openUrl("http://127.0.0.1:9/authorize", { BROWSER: script })).toBe("browser");
  });
});

describe("the callback listener", () => {
  it("takes the code of the answer with this sign-in's state, refuses another state, and answers 404 elsewhere", async () => {
    const loopback = await listenLoopback(0);
    expect(loopback.redirectUrl).toBe(`http://127.0.0.1:${loopback.port}/callback`);
    expect((await fetch(`http://127.0.0.1:${loopback.port}/other`)).status).toBe(404);
    const good = loopback.code("s1", 5000);
    const page = await fetch(`${loopback.redirectUrl}?code=abc&state=s1`);
    expect(page.status).toBe(200);
    expect(await good).toBe("abc");
    // Outcomes read as they settle: a rejection with no handler yet would count as unhandled.
    const outcome = (p: Promise<string>) =>
      p.then(
        (code) => `code ${code}`,
        (error: Error) => error.message,
      );
    const told: string[] = [];
    const bad = outcome(loopback.code("s2", 1500, undefined, (why) => told.push(why)));
    const refused = await fetch(`${loopback.redirectUrl}?code=stolen&state=s1`);
    expect(refused.status).toBe(400);
    expect(told).toEqual([expect.stringContaining("state that is not this sign-in's")]);
    expect(await bad).toContain("1 answer with a state not this sign-in's came and was refused");
    const late = outcome(loopback.code("s2b", 5000));
    await fetch(`${loopback.redirectUrl}?code=wrong&state=other`);
    expect((await fetch(`${loopback.redirectUrl}?code=right&state=s2b`)).status).toBe(200);
    expect(await late).toBe("code right");
    // The issuer check (RFC 9207) sees each answer's `iss`, present or not, before its code is taken.
    const seen: (string | undefined)[] = [];
    const check = (iss: string | undefined) => (
      seen.push(iss),
      iss === "https://as.example" ? undefined : new SignInError("oauth_issuer_mismatch", `iss ${iss}`)
    );
    const checked = outcome(loopback.code("s4", 5000, undefined, undefined, check));
    expect((await fetch(`${loopback.redirectUrl}?code=c4&state=s4&iss=https%3A%2F%2Fas.example`)).status).toBe(200);
    expect(await checked).toBe("code c4");
    const mixedUp = outcome(loopback.code("s5", 5000, undefined, undefined, check));
    expect((await fetch(`${loopback.redirectUrl}?code=c5&state=s5&iss=https%3A%2F%2Fevil.example`)).status).toBe(400);
    expect(await mixedUp).toBe("iss https://evil.example");
    const without = outcome(loopback.code("s6", 5000, undefined, undefined, check));
    expect((await fetch(`${loopback.redirectUrl}?code=c6&state=s6`)).status).toBe(400);
    expect(await without).toBe("iss undefined");
    expect(seen).toEqual(["https://as.example", "https://evil.example", undefined]);
    const waiting = outcome(loopback.code("s3", 5000));
    await loopback.close();
    expect(await waiting).toBe("sign-in cancelled");
  });
});

describe("sign-in configuration", () => {
  const parse = (servers: Record<string, unknown>, metatools: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) =>
    parseConfig({ mcpServers: servers, metatools: { code: { enabled: false }, ...metatools } }, { file: join(tempDir(), "metatools.json"), env });

  it("signs in to remote servers unless they carry an Authorization header or say oauth: false", () => {
    const config = parse({
      a: { url: "https://a.example/mcp" },
      b: { url: "https://b.example/mcp", headers: { authorization: "Bearer xyz123456" } },
      c: { url: "https://c.example/mcp", oauth: false },
      d: { url: "https://d.example/mcp", oauth: { clientId: "id", scopes: ["r"] } },
    });
    expect(config.backends.map((b) => ("oauth" in b ? b.oauth : "none"))).toEqual([{}, "none", "none", { clientId: "id", scopes: ["r"] }]);
    expect(config.auth).toEqual({ kind: "file", file: join(config.file!, "..", "metatools.tokens.json") });
  });

  it("refuses a metadata document URL that is not https, and the shared store when it is memory", () => {
    // A server's entry: that server waits for a fix (needs_config), the rest of the config loads.
    expect(parse({ a: { url: "https://a.example/mcp", oauth: { clientMetadataUrl: "http://me.example/client.json" } } }).unresolved[0]?.problem).toMatch(
      /oauth\.clientMetadataUrl: must be an https URL with a path/,
    );
    expect(() => parse({}, { auth: { storage: "store" } })).toThrow(/metatools\.auth\.storage: "store" keeps sign-ins in metatools\.store, which is memory/);
  });

  it("keeps a client secret out of everything shown, written literally or as ${VAR}", () => {
    const config = parse(
      {
        a: { url: "https://a.example/mcp", oauth: { clientId: "id", clientSecret: "literal-secret-1" } },
        b: { url: "https://b.example/mcp", oauth: { clientId: "id", clientSecret: "${B_CLIENT}" } },
      },
      {},
      { B_CLIENT: "from-env-secret-2" },
    );
    const redact = new GrowingRedactor(config.secrets).redact;
    expect(redact("literal-secret-1 from-env-secret-2")).toBe("[redacted OAuth client secret of a] [redacted $B_CLIENT]");
  });

  it("init keeps a client's OAuth settings for remote servers and says they sign in with metatools auth login", () => {
    const converted = convertServers(
      [
        {
          client: "claude-code",
          file: "/x/.mcp.json",
          servers: {
            linear: { type: "http", url: "https://mcp.linear.app/mcp" },
            gh: { type: "http", url: "https://api.githubcopilot.com/mcp/", oauth: { clientId: "Iv1.abc", callbackPort: 8765 } },
          },
        },
      ],
      { self: "/nowhere/metatools", home: "/home/u", cwd: "/work" },
    );
    expect(converted.servers.gh).toEqual({ url: "https://api.githubcopilot.com/mcp/", oauth: { clientId: "Iv1.abc", callbackPort: 8765 } });
    expect(converted.notes).toContain("linear: a remote server; if it asks for a sign-in (OAuth), sign in once with `metatools auth login linear`");
  });
});
