/**
 * Every byte from a remote party is capped. `metatools serve`, a real child
 * process, stays up and small while an authorization server answers a token
 * refresh with 300 MiB, and while a Streamable HTTP backend's event stream
 * sends a 600 MiB line; it serves on afterwards. `metatools auth login`
 * meets bad metadata and huge answers with a clear message, never a stack.
 * The child's memory is watched from /proc: past 500 MiB it is killed and
 * the test fails at once, so a regression costs seconds, not gigabytes.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { startFloodingSseBackend, startHostileHttpBackend } from "../../fixtures/hostile-http-backend.js";
import { startHttpBackend } from "../../fixtures/http-backend.js";
import { startHostileOAuthServer } from "../../fixtures/oauth/hostile-server.js";
import { runCli } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/harness.js";
import { httpClientTransport, startHttp, type HttpChild } from "../../helpers/serve.js";

const MiB = 2 ** 20;
const RSS_LIMIT = 500 * MiB;

let child: HttpChild | undefined;
/** What a test started, stopped after it (last first), pass or fail. */
const started: (() => unknown)[] = [];
const cleanup = (stop: () => unknown) => void started.push(stop);
afterEach(async () => {
  await child?.stop();
  child = undefined;
  for (const stop of started.splice(0).reverse()) await Promise.resolve(stop()).catch(() => {});
});

/** Polls the process's memory; past `limit` resident it is killed, so the test fails fast. `peak()` is its VmHWM. */
function watchMemory(pid: number, limit = RSS_LIMIT) {
  let peak = 0;
  let killed = false;
  const read = () => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? 0) * 1024;
      peak = Math.max(peak, kib("VmHWM"));
      if (kib("VmRSS") > limit && !killed) {
        killed = true;
        process.kill(pid, "SIGKILL");
      }
    } catch {
      // Gone: the last reading stands.
    }
  };
  const timer = setInterval(read, 50);
  return {
    peak: () => (read(), peak),
    killed: () => killed,
    stop: () => clearInterval(timer),
  };
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "remote-bytes-test", version: "1.0.0" });
  await client.connect(httpClientTransport(url));
  cleanup(() => client.close());
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const result = await client.callTool({ name, arguments: args });
  return JSON.parse((result.content as { text: string }[])[0]!.text);
}

function writeConfig(mcpServers: Record<string, unknown>): { dir: string; config: string } {
  const dir = tempDir("metatools-remote-bytes-");
  const config = join(dir, "metatools.json");
  writeFileSync(config, JSON.stringify({ mcpServers, metatools: { code: { enabled: false } } }));
  return { dir, config };
}

describe("what a remote party sends is capped", () => {
  it("serve stays up and under 500 MiB while the authorization server answers a refresh with 300 MiB, and serves on", async () => {
    const oauth = await startHostileOAuthServer();
    cleanup(() => oauth.close());
    const weather = await startHttpBackend();
    cleanup(() => weather.close());
    oauth.set("token", { stream: { bytes: 300 * MiB, head: '{"access_token":"' } });
    const { dir, config } = writeConfig({ notes: { url: oauth.mcpUrl, connectTimeoutMs: 10_000 }, weather: { type: "http", url: weather.url } });
    // A stored sign-in whose access token has expired: the first request to notes refreshes it.
    const signIn = {
      url: oauth.mcpUrl,
      resource: oauth.mcpUrl,
      discovery: {
        authorizationServerUrl: oauth.origin,
        authorizationServerMetadata: {
          issuer: oauth.origin,
          authorization_endpoint: `${oauth.origin}/authorize`,
          token_endpoint: `${oauth.origin}/token`,
          response_types_supported: ["code"],
        },
      },
      client: { client_id: "hostile-client", redirect_uris: ["http://127.0.0.1:1/callback"], token_endpoint_auth_method: "none" },
      tokens: { access_token: "expired-access", token_type: "Bearer", expires_in: 60, refresh_token: "refresh-1" },
      expiresAt: Date.now() - 60_000,
      updatedAt: Date.now(),
    };
    const tokenFile = join(dir, "metatools.tokens.json");
    writeFileSync(tokenFile, JSON.stringify({ version: 1, backends: { notes: signIn } }));
    chmodSync(tokenFile, 0o600);

    child = await startHttp(["--config", config]);
    const memory = watchMemory(child.child.pid!);
    cleanup(() => memory.stop());
    const client = await connect(child.url);
    const refresh = await until("a token refresh", () => oauth.requests.find((r) => r.route === "token" && r.flood));
    await refresh.flood!.done;
    // Hung up on after at most a few MiB in flight, not read to the end.
    expect(refresh.flood!.cut).toBe(true);
    expect(refresh.flood!.sent).toBeLessThan(32 * MiB);

    const search = await call(client, "search_tools", { query: "weather forecast for a city" });
    expect(search.hits.map((h: { id: string }) => h.id)).toContain("weather:weather_forecast");
    const notes = search.unavailable?.find((u: { namespace: string }) => u.namespace === "notes");
    expect(notes, JSON.stringify(search.unavailable)).toBeDefined();
    expect(await call(client, "run_tool", { tool_id: "weather:weather_forecast", args: { city: "Oslo" } })).toMatchObject({ ok: true });
    expect(child.stderr()).toContain("was larger than 1 MiB, more than any OAuth answer needs");
    expect(child.stderr()).not.toMatch(/\n\s+at /);
    expect(memory.killed()).toBe(false);
    expect(child.child.exitCode).toBeNull();
    const peak = memory.peak();
    process.stderr.write(`remote-bytes: serve peak RSS ${Math.round(peak / MiB)} MiB during a 300 MiB refresh answer (read ${refresh.flood!.sent} bytes)\n`);
    expect(peak).toBeLessThan(RSS_LIMIT);
  }, 60_000);

  it("serve stays under 500 MiB while a backend's event stream sends a 600 MiB line: the stream is dropped and opened again, calls go on", async () => {
    const backend = await startHostileHttpBackend({ lineBytes: 600 * MiB, hostileStreams: 1 });
    cleanup(() => backend.close());
    const { config } = writeConfig({ weather: { type: "http", url: backend.url } });
    child = await startHttp(["--config", config]);
    const memory = watchMemory(child.child.pid!);
    cleanup(() => memory.stop());
    const client = await connect(child.url);

    const flood = await until("the event stream's flood", () => backend.floods[0]);
    await flood.done;
    expect(flood.cut).toBe(true);
    expect(flood.sent).toBeLessThan(32 * MiB);
    // The SDK opens the stream again (a well-behaved one this time).
    await until("the event stream opened again", () => backend.streamsOpened() >= 2);
    expect(await call(client, "run_tool", { tool_id: "weather:weather_forecast", args: { city: "Oslo" } })).toMatchObject({ ok: true });
    const search = await call(client, "search_tools", { query: "weather forecast" });
    expect(search.hits.map((h: { id: string }) => h.id)).toContain("weather:weather_forecast");
    expect(memory.killed()).toBe(false);
    expect(child.child.exitCode).toBeNull();
    const peak = memory.peak();
    process.stderr.write(`remote-bytes: serve peak RSS ${Math.round(peak / MiB)} MiB during a 600 MiB event-stream line (read ${flood.sent} bytes)\n`);
    expect(peak).toBeLessThan(RSS_LIMIT);
  }, 60_000);
});

describe("what a legacy SSE backend sends is capped", () => {
  it("an event over 10 MiB (a 600 MiB line) drops the connection, which is made again; serve stays up and under 500 MiB", async () => {
    const backend = await startFloodingSseBackend({ lineBytes: 600 * MiB });
    cleanup(() => backend.close());
    const weather = await startHttpBackend();
    cleanup(() => weather.close());
    const { config } = writeConfig({ legacy: { type: "sse", url: backend.url, connectTimeoutMs: 20_000 }, weather: { type: "http", url: weather.url } });
    child = await startHttp(["--config", config]);
    const memory = watchMemory(child.child.pid!);
    cleanup(() => memory.stop());
    const client = await connect(child.url);
    const flood = await until("the event stream's flood", () => backend.floods[0]);
    await flood.done;
    expect(flood.cut).toBe(true);
    expect(flood.sent).toBeLessThan(48 * MiB);
    // Dropped, so the manager connects again: each new stream floods too, and each is cut the same way.
    await until("a second connection", () => backend.floods[1]);
    const search = await until("legacy reported unavailable", async () => {
      const found = await call(client, "search_tools", { query: "weather forecast" });
      return found.unavailable?.some((u: { namespace: string }) => u.namespace === "legacy") ? found : undefined;
    });
    expect(search.hits.map((h: { id: string }) => h.id)).toContain("weather:weather_forecast");
    await backend.floods[1]!.done;
    for (const each of backend.floods.slice(0, 2)) expect(each.sent).toBeLessThan(48 * MiB);
    expect(await call(client, "run_tool", { tool_id: "weather:weather_forecast", args: { city: "Oslo" } })).toMatchObject({ ok: true });
    expect(memory.killed()).toBe(false);
    expect(child.child.exitCode).toBeNull();
    const peak = memory.peak();
    process.stderr.write(`remote-bytes: serve peak RSS ${Math.round(peak / MiB)} MiB during a 600 MiB legacy SSE line (read ${flood.sent} bytes)\n`);
    expect(peak).toBeLessThan(RSS_LIMIT);
  }, 60_000);
});

describe("auth login meets bad metadata and huge answers with a clear message", () => {
  const cases: { name: string; set: (o: Awaited<ReturnType<typeof startHostileOAuthServer>>) => void; says: RegExp }[] = [
    {
      name: "protected-resource metadata naming another resource",
      set: (o) => o.set("prm", { json: { resource: "https://elsewhere.example/mcp", authorization_servers: [o.origin] } }),
      says: /notes: signing in: the server's protected-resource metadata is for https:\/\/elsewhere\.example\/mcp, not for http:\/\/127\.0\.0\.1:\d+\/mcp/,
    },
    {
      name: "a javascript: authorization endpoint",
      set: (o) => o.set("metadata", (origin) => ({ json: metadata(origin, { authorization_endpoint: "javascript:alert(1)" }) })),
      says: /notes: signing in: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server names an endpoint that is not an http\(s\) URL \(authorization_endpoint: URL cannot use javascript:/,
    },
    {
      name: "a file: token endpoint",
      set: (o) => o.set("metadata", (origin) => ({ json: metadata(origin, { token_endpoint: "file:///etc/passwd" }) })),
      says: /notes: signing in: the server's OAuth metadata names file:\/\/\/etc\/passwd as its token_endpoint, which is not an http\(s\) URL/,
    },
    {
      name: "300 MiB of metadata",
      set: (o) => o.set("metadata", { stream: { bytes: 300 * MiB, head: '{"issuer":"' } }),
      says: /notes: signing in: the answer of http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server was larger than 1 MiB/,
    },
  ];
  for (const c of cases)
    it(`${c.name}: one line saying what is wrong, its stack only under --log-level debug`, async () => {
      const oauth = await startHostileOAuthServer();
      cleanup(() => oauth.close());
      c.set(oauth);
      const { config } = writeConfig({ notes: { url: oauth.mcpUrl } });
      const plain = await runCli(["auth", "login", "notes", "--no-browser", "--timeout", "5", "--config", config]);
      expect(plain.code).toBe(1);
      expect(plain.stderr).toMatch(c.says);
      expect(plain.stderr).not.toMatch(/\n\s+at /);
      const debug = await runCli(["auth", "login", "notes", "--no-browser", "--timeout", "5", "--log-level", "debug", "--config", config]);
      expect(debug.stderr).toMatch(c.says);
      expect(debug.stderr).toMatch(/metatools debug: notes: sign-in failed: [\s\S]*?\n\s+at /);
    }, 30_000);
});

function metadata(origin: string, changes: Record<string, string>): Record<string, unknown> {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    ...changes,
  };
}
