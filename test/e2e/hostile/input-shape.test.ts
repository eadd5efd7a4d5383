/**
 * Input too deep or too large is a client's error, refused before anything
 * walks it: `metatools serve` over HTTP (both eras, sessions and their
 * batches) and over stdio, spoken to as a raw client writes. A body nested
 * 250,000 deep anywhere gets 400 / -32600 naming the limit, is logged as a
 * refusal at warn with no stack, and the server goes on serving; a 20 MB
 * stdio message is refused by its id and the next call answers.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../../src/util/json-frame.js";
import { CLI } from "../../helpers/cli.js";
import { eventually } from "../../helpers/eventually.js";
import { tempDir, testHomes } from "../../helpers/harness.js";
import { envelope, MODERN } from "../../helpers/modern.js";
import { openSession, type Session } from "../../helpers/harness.js";
import { startHttp, TEST_TOKEN, type HttpChild } from "../../helpers/serve.js";
import { fileURLToPath } from "node:url";

const DEPTH = 250_000;
/** `[[[…1…]]]`, DEPTH deep: half a megabyte. */
const deepArray = () => `${"[".repeat(DEPTH)}1${"]".repeat(DEPTH)}`;
/** `{"a":{"a":…}}`, DEPTH deep: 1.5 MB. */
const deepObject = () => `${'{"a":'.repeat(DEPTH)}1${"}".repeat(DEPTH)}`;

function config(): string {
  const file = join(tempDir(), "metatools.json");
  // Bodies of 2 MB are let through the size bound, so it is the nesting that refuses them.
  writeFileSync(file, JSON.stringify({ mcpServers: {}, metatools: { http: { maxBodyBytes: 4 << 20 } } }));
  return file;
}

describe("HTTP: a body nested 250,000 deep", () => {
  let server: HttpChild;
  let session: string;
  beforeAll(async () => {
    server = await startHttp(["--config", config()]);
    const opened = await post(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    );
    session = opened.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
  }, 30_000);
  afterAll(() => server?.stop());

  const post = async (body: string, headers: Record<string, string> = {}) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${TEST_TOKEN}`, ...headers },
      body,
    });

  const call = (args: string, id = 7) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"run_tool","arguments":{"tool_id":"code:tree","args":${args}}}}`;
  const cases: [string, () => string, Record<string, string>?][] = [
    ["in a tool's arguments (arrays)", () => call(deepArray())],
    ["in a tool's arguments (objects)", () => call(deepObject())],
    ["in _meta", () => `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":${deepArray()}}}`],
    ["in a batch", () => `[${call("{}", 1)},${call(deepArray(), 2)}]`],
    ["as the id", () => `{"jsonrpc":"2.0","id":${deepArray()},"method":"ping"}`],
    ["in a prompt's arguments", () => `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"x","arguments":${deepObject()}}}`],
    [
      "in a completion",
      () => `{"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"x"},"argument":${deepObject()}}}`,
    ],
    [
      "in a 2026-07-28 request's inputResponses",
      () =>
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool_id":"code:tree"},"inputResponses":${deepObject()},"_meta":${JSON.stringify(envelope())}}}`,
      { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "run_tool" },
    ],
  ];

  it.each(cases)("%s: 400, JSON-RPC -32600 naming the limit, a refusal at warn, and the server goes on", async (_where, body, headers = {}) => {
    const before = server.stderr().length;
    const response = await post(body(), { "mcp-session-id": session, ...headers });
    expect(response.status).toBe(400);
    const reply = (await response.json()) as { id: unknown; error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32600);
    expect(reply.error.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    const logged = await eventually(
      () => server.stderr().slice(before),
      (text) => text.includes("refused a body"),
    );
    expect(logged).toMatch(/warn.*refused a body/i);
    expect(logged).not.toMatch(/Maximum call stack|\n\s+at /);
    // The next request is served as ever.
    const ok = await post(`{"jsonrpc":"2.0","id":8,"method":"tools/list"}`, { "mcp-session-id": session });
    expect(ok.status).toBe(200);
  });

  it("echoes the id of a single request it refuses", async () => {
    const reply = (await (await post(call(deepArray(), 41), { "mcp-session-id": session })).json()) as { id: unknown };
    expect(reply.id).toBe(41);
  });
});

describe("stdio: too deep, too large", () => {
  let child: ChildProcessWithoutNullStreams;
  let stderr = "";
  const replies = new Map<unknown, Record<string, any>>();
  beforeAll(async () => {
    child = spawn(process.execPath, [CLI, "serve", "--config", config()], { env: { ...process.env, ...testHomes() } });
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const message = JSON.parse(buffer.slice(0, end)) as Record<string, any>;
        buffer = buffer.slice(end + 1);
        if ("id" in message) replies.set(message.id, message);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "init",
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      }),
    );
    await reply("init");
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  }, 30_000);
  afterAll(() => {
    child?.stdin.end();
  });

  const send = (line: string) => child.stdin.write(`${line}\n`);
  const reply = async (id: unknown) => (await eventually(() => replies.get(id), Boolean, 20_000))!;
  const listed = async (id: number) => {
    send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list" }));
    expect((await reply(id)).result.tools.map((t: { name: string }) => t.name)).toContain("run_tool");
  };

  it("a call nested 250,000 deep is refused by its id (-32600), logged at warn, and the next call answers", async () => {
    send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"run_tool","arguments":{"tool_id":"code:tree","args":${deepObject()}}}}`);
    expect((await reply(11)).error).toMatchObject({ code: -32600, message: expect.stringContaining(`nests deeper than ${MAX_JSON_DEPTH} levels`) });
    await listed(12);
    // The id as a client sends it, after the params: found at the end.
    send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run_tool","arguments":{"tool_id":"code:tree","args":${deepArray()}}},"id":13}`);
    expect((await reply(13)).error.code).toBe(-32600);
    expect(stderr).toMatch(/warn.*stdio: refused a message of \d+ bytes \(id 11\)/i);
    expect(stderr).not.toMatch(/Maximum call stack|\n\s+at /);
  });

  it("a 20 MB message is refused by its id, and the server keeps serving; 9 MB still gets its own answer", async () => {
    const huge = "x".repeat(20 << 20);
    send(
      JSON.stringify({ jsonrpc: "2.0", id: 21, method: "tools/call", params: { name: "run_tool", arguments: { tool_id: "code:tree", args: { path: huge } } } }),
    );
    expect((await reply(21)).error).toMatchObject({ code: -32600, message: expect.stringContaining("larger than 10485760 bytes") });
    await listed(22);
    const nine = "x".repeat(9 << 20);
    send(
      JSON.stringify({ jsonrpc: "2.0", id: 23, method: "tools/call", params: { name: "run_tool", arguments: { tool_id: "code:tree", args: { path: nine } } } }),
    );
    expect(JSON.parse((await reply(23)).result.content[0].text).error.code).toBe("invalid_args");
    await listed(24);
    expect(stderr).toMatch(/stdio: refused a message of \d+ bytes \(id 21\): Invalid Request: the message is larger than/);
    expect(stderr).not.toMatch(/the transport closed/);
  }, 60_000);
});

describe("a backend whose answer nests 20,000 deep, over stdio and Streamable HTTP", () => {
  const DEEP = fileURLToPath(new URL("../../fixtures/deep-server.mjs", import.meta.url));
  let session: Session;
  let http: ChildProcessWithoutNullStreams;
  beforeAll(async () => {
    http = spawn(process.execPath, [DEEP, "http"]);
    const url = await new Promise<string>((resolve) => {
      let out = "";
      http.stdout.on("data", (chunk: Buffer) => {
        out += chunk;
        const found = /listening (\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
    });
    session = await openSession({
      mcpServers: { viastdio: { command: process.execPath, args: [DEEP, "stdio"] }, viahttp: { url } },
      metatools: { code: { enabled: false } },
    });
  }, 30_000);
  afterAll(async () => {
    await session?.close();
    http?.kill();
  });

  it.each(["viastdio", "viahttp"])("%s: that call fails saying why, and the backend's next call answers", async (namespace) => {
    const deep = await session.call("run_tool", { tool_id: `${namespace}:deep`, args: {} });
    expect(deep.ok).toBe(false);
    expect(deep.error.message).toMatch(/nests deeper than 128 levels/);
    expect(deep.error.message).not.toMatch(/Maximum call stack/);
    const fine = await eventually(
      () => session.call("run_tool", { tool_id: `${namespace}:fine`, args: {} }),
      (body) => body.ok === true,
    );
    expect(fine.result).toBe("fine ran");
  });
});
