/**
 * A session lives as long as something is open on it: a call in flight or
 * a connected event stream keeps it past `metatools.http.sessionIdleMs`,
 * and idle time counts from when the last of them ended. A session whose
 * client is gone is still swept, once its calls end (at their deadline if
 * need be); a session the server closes with a call open answers that call
 * with an error instead of leaving its client waiting. Real `metatools
 * serve --http` processes, real SDK clients, the public `server-everything`
 * and the executor fixture as backends.
 *
 * What must hold past the idle limit is held for 36 s, past the 30 s sweep
 * period of the old code too, so that each case fails there: the tests run
 * side by side against one server, and the file takes about 40 s.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loggedCalls, servers, tempDir } from "../helpers/harness.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const IDLE_MS = 2000;
const HOLD_S = 36;
const opened: Client[] = [];
let server: HttpChild;
let callLog: string;

function serve(callLog: string, http: Record<string, unknown>): Promise<HttpChild> {
  const config = join(tempDir(), "metatools.json");
  const mcpServers = { everything: servers.everything(), kv: servers.exec(callLog) };
  writeFileSync(config, JSON.stringify({ mcpServers, metatools: { code: { enabled: false }, http: { sessionIdleMs: IDLE_MS, ...http } } }));
  return startHttp(["--config", config]);
}

beforeAll(async () => {
  callLog = join(tempDir(), "calls.log");
  server = await serve(callLog, {});
}, 30_000);

afterAll(async () => {
  await Promise.all(opened.map((client) => client.close().catch(() => {})));
  await server?.stop();
});

/**
 * A connected SDK client. With `eventStream: false` its GET is answered 405
 * before it leaves the process (as a server without one would answer), so
 * nothing but its calls is open on its session.
 */
async function connect(url: string, eventStream = true): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = eventStream
    ? httpClientTransport(url)
    : new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${TEST_TOKEN}` } },
        fetch: (input, init) => (init?.method === "GET" ? Promise.resolve(new Response(null, { status: 405 })) : fetch(input, init)),
      });
  const client = new Client({ name: "session-test", version: "1" });
  await client.connect(transport);
  opened.push(client);
  return { client, transport };
}

const text = (result: Record<string, unknown>) => (result.content as { text: string }[])[0]!.text;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const closedLine = (id: string) => `closing session ${id}`;

/** Checks that `check` holds for `ms`, polling: fails as soon as it does not (a session swept early fails at once, not after the hold). */
async function holds(what: string, check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!check()) throw new Error(`no longer so after ${ms - (end - Date.now())} ms: ${what}; stderr:\n${server.stderr().slice(-3000)}`);
    await sleep(100);
  }
  expect(check()).toBe(true);
}

/** Waits until `check` holds, polling; fails after `ms`. */
async function until(what: string, check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}; stderr:\n${server.stderr().slice(-3000)}`);
    await sleep(100);
  }
}

describe.concurrent("metatools serve --http: sessions stay while something is open", () => {
  it("answers a call that runs far longer than sessionIdleMs, with nothing else on its session, and keeps the session", async () => {
    const { client, transport } = await connect(server.url, false);
    const progress: number[] = [];
    const result = await client.callTool(
      { name: "run_tool", arguments: { tool_id: "everything:trigger-long-running-operation", args: { duration: HOLD_S, steps: 6 } } },
      undefined,
      { onprogress: (p) => void progress.push(p.progress), timeout: 80_000 },
    );
    expect(text(result)).toContain(`Long running operation completed. Duration: ${HOLD_S} seconds, Steps: 6.`);
    // Progress came all along (the last note shares a read with the result at times, and the SDK client then drops it).
    expect(progress.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(server.stderr()).not.toContain(closedLine(transport.sessionId!));
    // The session is still there for the next call.
    expect(text(await client.callTool({ name: "search_tools", arguments: { query: "long running" } }))).toContain("trigger-long-running-operation");
  }, 120_000);

  it("keeps a session whose client holds its event stream open, and sweeps it once the client is gone, counting from then", async () => {
    const { client, transport } = await connect(server.url);
    const id = transport.sessionId!;
    await holds(`session ${id} open`, () => !server.stderr().includes(closedLine(id)), HOLD_S * 1000);
    expect(text(await client.callTool({ name: "search_tools", arguments: { query: "echo" } }))).toContain("everything:echo");
    // The client vanishes: no DELETE, its connections dropped.
    const left = Date.now();
    await client.close();
    await until(`session ${id} swept`, () => server.stderr().includes(closedLine(id)), 30_000);
    expect(Date.now() - left).toBeGreaterThanOrEqual(IDLE_MS);
  }, 120_000);

  it("keeps a session whose client vanished mid-call until the call ends at its deadline, then sweeps it", async () => {
    const { client, transport } = await connect(server.url, false);
    const id = transport.sessionId!;
    const deadlineMs = (HOLD_S - 2) * 1000;
    const sent = Date.now();
    const call = client
      .callTool({ name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 1000, step_ms: 100 }, timeout_ms: deadlineMs } }, undefined, {
        timeout: 120_000,
      })
      .catch((error: unknown) => error);
    await until("the slow call reached the backend", () => loggedCalls(callLog).includes("slow"), 10_000);
    await client.close();
    expect(await call).toBeInstanceOf(Error);
    await until(`session ${id} swept`, () => server.stderr().includes(closedLine(id)), deadlineMs + 30_000);
    // Not before the call's deadline (the backend would have run 100 s), when the backend was told to stop.
    expect(Date.now() - sent).toBeGreaterThanOrEqual(deadlineMs + IDLE_MS);
    expect(loggedCalls(callLog)).toContain("slow:cancelled");
    const stderr = server.stderr();
    const dropped = stderr.indexOf(`session ${id}: request`);
    expect(dropped).toBeGreaterThanOrEqual(0);
    expect(dropped).toBeLessThan(stderr.indexOf(closedLine(id)));
  }, 120_000);
});

describe("metatools serve --http: closing a session with a call open", () => {
  it("on shutdown, answers a call still running after the grace period with an error instead of leaving the client waiting", async () => {
    const ownLog = join(tempDir(), "calls.log");
    const own = await serve(ownLog, { shutdownGraceMs: 500 });
    const { client } = await connect(own.url);
    const started = Date.now();
    const call = client
      .callTool({ name: "run_tool", arguments: { tool_id: "kv:slow", args: { steps: 600, step_ms: 100 } } }, undefined, { timeout: 60_000 })
      .catch((error: unknown) => error);
    await until("the slow call reached the backend", () => loggedCalls(ownLog).includes("slow"), 10_000);
    expect(await own.stop()).toBe(0);
    const error = await call;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain("the server is shutting down: the session closed before this request was answered");
    // Told at the shutdown, not at the client's own 60 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 90_000);
});
