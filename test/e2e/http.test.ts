/**
 * What only HTTP has: bearer tokens, Origin and Host checks, the body size
 * limit, the rate limit, health and readiness, the refusal to serve a
 * network address unauthenticated, and a graceful shutdown that lets an
 * in-flight call finish. Real `metatools serve --http` processes, raw
 * requests and a real SDK client.
 */
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";
import { httpClientTransport, startHttp, TEST_TOKEN, untilReady, type HttpChild } from "../helpers/serve.js";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

function post(url: string, headers: Record<string, string>, body: string | ReadableStream = initialize): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body,
    ...(typeof body === "string" ? {} : { duplex: "half" }),
  } as RequestInit);
}

const errorOf = async (response: Response) => ((await response.json()) as { error: { message: string } }).error.message;

const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
const SECOND_TOKEN = "second-token-0123456789abcdef";
let server: HttpChild;
let callLog: string;

beforeAll(async () => {
  const dir = tempDir();
  callLog = join(dir, "calls.log");
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { kv: servers.exec(callLog) },
      metatools: {
        code: { enabled: false },
        http: { tokens: [SECOND_TOKEN], maxBodyBytes: 4096, allowedOrigins: ["https://app.example.com"], shutdownGraceMs: 5000 },
      },
    }),
  );
  server = await startHttp(["--config", config]);
}, 30_000);

afterAll(() => server?.stop());

describe("metatools serve --http: admission", () => {
  it("answers 401 without a token or with a wrong one, and 200 with the right one", async () => {
    const none = await post(server.url, {});
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect(await errorOf(none)).toContain("missing bearer token");
    const wrong = await post(server.url, { Authorization: "Bearer not-the-token-0123456789" });
    expect(wrong.status).toBe(401);
    expect(await errorOf(wrong)).toBe("invalid bearer token");
    const right = await post(server.url, auth);
    expect(right.status).toBe(200);
    expect(right.headers.get("mcp-session-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("keeps a session to the token that opened it", async () => {
    const opened = await post(server.url, auth);
    const session = { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    const stranger = await post(server.url, { Authorization: `Bearer ${SECOND_TOKEN}`, ...session }, ping);
    expect(stranger.status).toBe(404);
    expect(await errorOf(stranger)).toContain("unknown or expired session");
    expect((await post(server.url, { ...auth, ...session }, ping)).status).toBe(200);
    // The second token is a valid one: it opens sessions of its own.
    expect((await post(server.url, { Authorization: `Bearer ${SECOND_TOKEN}` })).status).toBe(200);
  });

  it("shows the SDK client a 401 it can act on", async () => {
    const client = new Client({ name: "no-token", version: "1" });
    await expect(client.connect(httpClientTransport(server.url, null))).rejects.toMatchObject({ code: 401 });
  });

  it("answers 403 to a foreign Origin or Host, and lets loopback and allow-listed origins in", async () => {
    const foreign = await post(server.url, { ...auth, Origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toContain("https://evil.example is not allowed");
    // fetch will not send another Host: a raw request, as a rebound browser page would.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        { method: "POST", headers: { ...auth, Host: "evil.example", "Content-Type": "application/json", Accept: "application/json, text/event-stream" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end(initialize);
    });
    expect(rebound).toBe(403);
    expect((await post(server.url, { ...auth, Origin: "https://app.example.com" })).status).toBe(200);
    expect((await post(server.url, { ...auth, Origin: "http://localhost:3000" })).status).toBe(200);
  });

  it("answers a browser's preflight from an allowed origin, with the headers it needs", async () => {
    const preflight = await fetch(server.url, {
      method: "OPTIONS",
      headers: { Origin: "https://app.example.com", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(preflight.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
    const call = await post(server.url, { ...auth, Origin: "https://app.example.com" });
    expect(call.headers.get("access-control-expose-headers")).toBe("Mcp-Session-Id");
    expect((await fetch(server.url, { method: "OPTIONS", headers: { Origin: "https://evil.example" } })).status).toBe(403);
  });

  it("answers 400 with a JSON-RPC parse error to a body that is not JSON", async () => {
    const garbled = await post(server.url, auth, "{ not json");
    expect(garbled.status).toBe(400);
    expect(((await garbled.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("answers 413 to a body over the limit, declared or streamed", async () => {
    const big = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { pad: "x".repeat(10_000) } });
    const declared = await post(server.url, auth, big);
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toContain("exceeds the limit of 4096");
    const bytes = new TextEncoder().encode(big);
    const streamed = new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
        controller.close();
      },
    });
    expect((await post(server.url, auth, streamed)).status).toBe(413);
  });

  it("serves /healthz and /readyz, and 404 elsewhere", async () => {
    const base = server.url.replace(/\/mcp$/, "");
    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "ok" });
    // Until the backends settle it says 503 { ready: false }, then 200; nothing else on the way.
    const answers = await untilReady(server.url);
    expect(answers.at(-1)?.status).toBe(200);
    for (const { status, body } of answers) expect({ status, body }).toEqual({ status: status === 200 ? 200 : 503, body: { ready: status === 200 } });
    // Without a valid token, readiness is all it says; with one, backend states but never their error texts.
    for (const headers of [{}, { Authorization: "Bearer not-the-token-0123456789" }] as Record<string, string>[]) {
      const anonymous = await fetch(`${base}/readyz`, { headers });
      expect(anonymous.status).toBe(200);
      expect(await anonymous.json()).toEqual({ ready: true });
    }
    expect((await fetch(`${base}/readyz`, { headers: { Origin: "https://evil.example" } })).status).toBe(403);
    const ready = await fetch(`${base}/readyz`, { headers: auth });
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { backends: unknown[] }).backends).toEqual(
      expect.arrayContaining([expect.objectContaining({ namespace: "kv", status: "ready" })]),
    );
    const elsewhere = await fetch(`${base}/other`, { headers: auth });
    expect(elsewhere.status).toBe(404);
    // A request target that is no URL gets an answer, and the server lives on.
    const garbage = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: new URL(base).port, path: "http://[", method: "GET" }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end();
    });
    expect(garbage).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

describe("metatools serve --http: limits and lifecycle", () => {
  it("answers 429 with Retry-After past the per-token rate", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    // One a minute after a burst of 3: nothing refills while the test runs.
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false }, http: { rateLimit: { perMinute: 1, burst: 3 }, maxSessionsPerToken: 2 } } }),
    );
    const limited = await startHttp(["--config", config]);
    try {
      const batch = JSON.stringify(Array.from({ length: 5 }, (_, i) => ({ jsonrpc: "2.0", id: i + 10, method: "ping" })));
      const tooBig = await post(limited.url, auth, batch);
      expect(tooBig.status).toBe(429);
      expect(await errorOf(tooBig)).toContain("a batch of 5 messages exceeds the rate limit's burst of 3");
      const statuses: number[] = [];
      for (let i = 0; i < 2; i++) statuses.push((await post(limited.url, auth)).status);
      expect(statuses).toEqual([200, 200]);
      // Two sessions is this token's share: the third initialize is refused for that (it still cost a request).
      const third = await post(limited.url, auth);
      expect(third.status).toBe(429);
      expect(await errorOf(third)).toContain("this token has 2 open sessions, its limit");
      const refused = await post(limited.url, auth);
      expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
      expect(await errorOf(refused)).toContain("rate limit of 1 requests per minute");
    } finally {
      await limited.stop();
    }
  });

  it("refuses a network address without tokens unless told, and stateless mode takes POST only", async () => {
    const refused = await runCli(["serve", "--http", "0", "--host", "0.0.0.0"], { env: { METATOOLS_TOKENS: "" } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("refusing to serve on 0.0.0.0 without authentication");
    const open = await startHttp(["--host", "0.0.0.0", "--allow-unauthenticated", "--stateless"], { METATOOLS_TOKENS: "" });
    try {
      expect(open.stderr()).toContain("stateless; no authentication");
      const url = open.url.replace("0.0.0.0", "127.0.0.1");
      expect((await post(url, {})).status).toBe(200);
      // Without tokens, anyone who may call /mcp sees the backends' states; no error text, ever.
      const ready = (await (await fetch(url.replace(/\/mcp$/, "/readyz"))).json()) as { backends: Record<string, unknown>[] };
      expect(ready.backends.length).toBeGreaterThan(0);
      for (const backend of ready.backends) expect(Object.keys(backend).sort()).toEqual(["namespace", "status", "tools"]);
      const get = await fetch(url, { headers: { Accept: "text/event-stream" } });
      expect(get.status).toBe(405);
      expect(get.headers.get("allow")).toBe("POST");
    } finally {
      await open.stop();
    }
  });

  it("on SIGTERM finishes the call in flight, refuses new ones, then exits 0", async () => {
    const client = new Client({ name: "shutdown", version: "1" });
    await client.connect(httpClientTransport(server.url));
    const slow = client.callTool({ name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 10, step_ms: 100 } } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = server.stop();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = await post(server.url, auth).then(
      (r) => r.status,
      () => "connection refused",
    );
    expect([503, "connection refused"]).toContain(late);
    const result = await slow;
    expect((result.content as { text: string }[])[0]!.text).toContain("done after 10 steps");
    expect(await exited).toBe(0);
    expect(server.stderr()).toContain("SIGTERM: finishing in-flight requests");
  });
});
