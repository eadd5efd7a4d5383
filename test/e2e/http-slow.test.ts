/**
 * Slow clients: a request's headers and body must arrive within
 * `metatools.http.bodyTimeoutMs`, or the server answers 408 and closes the
 * connection, even for a valid token; meanwhile it serves everyone else.
 * What takes long on the response side is not cut: a session's event stream
 * and a call that streams progress for longer than the limit. A real
 * `metatools serve --http` and raw sockets that dribble bytes.
 */
import { writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../helpers/harness.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const TIMEOUT_MS = 1000;
const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});
const headers = (accept = "application/json, text/event-stream") => ({ "Content-Type": "application/json", Accept: accept, ...auth });

let server: HttpChild;

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { kv: servers.exec(join(dir, "calls.log")) }, metatools: { code: { enabled: false }, http: { bodyTimeoutMs: TIMEOUT_MS } } }),
  );
  server = await startHttp(["--config", config]);
}, 30_000);

afterAll(() => server?.stop());

/** What a raw connection receives until the server closes it (or `giveUpMs` passes), and when it closed. */
function dribble(head: string, drip: string, everyMs: number, giveUpMs: number): Promise<{ received: string; closedAfterMs: number | undefined }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname);
    const started = Date.now();
    let received = "";
    let sent = 0;
    const timer = setInterval(() => {
      if (!socket.destroyed && sent < drip.length) socket.write(drip[sent++]!);
    }, everyMs);
    const finish = (closedAfterMs: number | undefined) => {
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closedAfterMs });
    };
    const giveUp = setTimeout(() => finish(undefined), giveUpMs);
    socket.on("connect", () => socket.write(head));
    socket.on("data", (d: Buffer) => (received += d.toString("utf8")));
    // The client keeps writing after the server gave up: a reset is a close too.
    socket.on("error", () => {});
    socket.on("close", () => finish(Date.now() - started));
  });
}

describe("metatools serve --http: slow clients", () => {
  it("answers a body dribbled a byte a second with 408 and closes the connection within the limit, serving others meanwhile", async () => {
    const { host } = new URL(server.url);
    const head = [
      `POST /mcp HTTP/1.1`,
      `Host: ${host}`,
      ...Object.entries(headers()).map(([k, v]) => `${k}: ${v}`),
      `Content-Length: ${initialize.length}`,
      "",
      "",
    ].join("\r\n");
    let slowEnded = false;
    const slow = dribble(head, initialize, 1000, 10_000).finally(() => (slowEnded = true));
    // While it dribbles, another client of the same token is served.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = await fetch(server.url, { method: "POST", headers: headers(), body: initialize });
    expect(other.status).toBe(200);
    expect(slowEnded).toBe(false);
    const { received, closedAfterMs } = await slow;
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toContain("metatools.http.bodyTimeoutMs");
    expect(closedAfterMs).toBeDefined();
    expect(closedAfterMs!).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it("answers headers dribbled a byte at a time (before any token is checked) with 408 and a close", async () => {
    const head = `POST /mcp HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n`;
    const { received, closedAfterMs } = await dribble("POST /mcp HTTP/1.1\r\n", head.slice(20), 200, 10_000);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs!).toBeLessThan(TIMEOUT_MS + 1500);
  });

  it("keeps a session's event stream open, and finishes a call that streams progress, far past the limit", async () => {
    // A session opened by hand, so the end of its GET event stream can be watched.
    const opened = await fetch(server.url, { method: "POST", headers: headers(), body: initialize });
    const session = { "mcp-session-id": opened.headers.get("mcp-session-id")!, "mcp-protocol-version": "2025-06-18" };
    await opened.body?.cancel();
    const initialized = await fetch(server.url, {
      method: "POST",
      headers: { ...headers(), ...session },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    expect(initialized.status).toBe(202);
    const stream = await fetch(server.url, { headers: { ...auth, ...session, Accept: "text/event-stream" } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const ended = reader.read().then(
      (r) => (r.done ? "ended" : "data"),
      () => "failed",
    );

    const client = new Client({ name: "long", version: "1" });
    const transport = httpClientTransport(server.url);
    await client.connect(transport);
    try {
      const progress: number[] = [];
      const result = await client.callTool({ name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 6, step_ms: 500 } } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
        timeout: 20_000,
      });
      expect((result.content as { text: string }[])[0]!.text).toContain("done after 6 steps");
      expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
      // Three seconds after it opened, three times the limit, the event stream is neither ended nor broken.
      expect(await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve("open"), 100))])).toBe("open");
    } finally {
      await reader.cancel();
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  });
});
