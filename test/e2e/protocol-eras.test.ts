/**
 * Both protocol eras on the front edge, through the built server: a
 * 2026-07-28 client without any handshake (raw HTTP: `server/discover`, a
 * stateless `tools/list` with cache hints and `anthropic/alwaysLoad`, a
 * `tools/call` answered with `resultType: "complete"`, the header checks),
 * a v2 SDK client pinned to 2026-07-28 over HTTP and over stdio, and a 1.x
 * client with its session beside them on the same server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.js";
import { servers } from "../helpers/harness.js";
import { envelope, httpServe, MODERN, postModern, startEraServer, stdioServe } from "../helpers/modern.js";
import { httpClientTransport, TEST_TOKEN, type HttpChild } from "../helpers/serve.js";

const ENVELOPE = envelope();
const SECOND_TOKEN = "second-token-0123456789abcdef";

let server: HttpChild;
let config: string;
/** Where the 2026-07-28 backend notes each call it saw cancelled. */
let aborted: string;

beforeAll(async () => {
  ({ server, config, aborted } = await startEraServer({
    more: (dir) => ({ kv: servers.exec(join(dir, "calls.log")) }),
    settings: { http: { tokens: [SECOND_TOKEN] } },
  }));
}, 30_000);

afterAll(() => server?.stop());

/** One JSON-RPC request of the 2026-07-28 era to the server. */
const post = (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, meta: Record<string, unknown> = ENVELOPE) =>
  postModern(server.url, method, params, { headers, meta });

const textOf = (result: unknown): string => ((result as { content: { type: string; text: string }[] }).content[0] as { text: string }).text;

describe("a 2026-07-28 client over raw HTTP, with no handshake", () => {
  it("server/discover lists 2026-07-28 among the supported versions, with the instructions and tools capability", async () => {
    const { status, body } = await post("server/discover", {});
    expect(status).toBe(200);
    const result = body.result as { supportedVersions: string[]; capabilities: Record<string, unknown>; instructions: string; resultType: string };
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities.tools).toBeDefined();
    expect(result.instructions).toContain("search_tools");
    expect(result.resultType).toBe("complete");
  });

  it("tools/list carries ttlMs, cacheScope, and alwaysLoad on each of the three tools", async () => {
    const { body } = await post("tools/list", {});
    const result = body.result as { ttlMs: number; cacheScope: string; tools: { name: string; _meta?: Record<string, unknown> }[] };
    expect(result.ttlMs).toBeGreaterThan(0);
    expect(result.cacheScope).toBe("private");
    expect(result.tools.map((t) => t.name).sort()).toEqual(["describe_tool", "run_tool", "search_tools"]);
    for (const tool of result.tools) expect(tool._meta?.["anthropic/alwaysLoad"], tool.name).toBe(true);
  });

  it("tools/call of search_tools answers with resultType complete and the ranked tools", async () => {
    const { body } = await post("tools/call", { name: "search_tools", arguments: { query: "look up a key" } });
    const result = body.result as { resultType: string; content: { text: string }[] };
    expect(result.resultType).toBe("complete");
    expect(textOf(result)).toContain("kv:lookup");
  });

  it("refuses a request whose Mcp-Name disagrees with its body, and a version it does not serve", async () => {
    const mismatch = await post("tools/call", { name: "search_tools", arguments: { query: "x" } }, { "mcp-name": "run_tool" });
    expect(mismatch.status).toBe(400);
    expect((mismatch.body.error as { code: number }).code).toBe(-32020);
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TEST_TOKEN}`,
        "mcp-method": "tools/list",
        "mcp-protocol-version": "2099-01-01",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/list",
        params: { _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      }),
    });
    const unsupported = (await response.json()) as { error: { code: number; data: { supported: string[] } } };
    expect(unsupported.error.code).toBe(-32022);
    expect(unsupported.error.data.supported).toContain(MODERN);
  });

  it("still asks for the bearer token", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-method": "server/discover" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } }),
    });
    expect(response.status).toBe(401);
  });
});

describe("SDK clients of both eras on one server", () => {
  it("a v2 client pinned to 2026-07-28 and a 1.x client with a session both search and run, over HTTP", async () => {
    const modern = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await modern.connect(httpServe(server.url));
    const legacy = new Client({ name: "legacy", version: "1" });
    const transport = httpClientTransport(server.url);
    await legacy.connect(transport);
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(transport.sessionId).toBeDefined();
      const found = await modern.callTool({ name: "search_tools", arguments: { query: "look up a key" } });
      expect(textOf(found)).toContain("kv:lookup");
      const ran = await modern.callTool({ name: "run_tool", arguments: { tool_id: "kv:lookup", args: { key: "from the new era" } } });
      expect(textOf(ran)).toContain("from the new era");
      const old = await legacy.callTool({ name: "run_tool", arguments: { tool_id: "kv:lookup", args: { key: "from the old era" } } });
      expect(textOf(old)).toContain("from the old era");
    } finally {
      await modern.close();
      await legacy.close();
    }
  });

  it("a v2 client pinned to 2026-07-28 over stdio", async () => {
    const modern = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await modern.connect(stdioServe(config));
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe(MODERN);
      const listed = await modern.listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(["describe_tool", "run_tool", "search_tools"]);
      const ran = await modern.callTool({ name: "run_tool", arguments: { tool_id: "kv:lookup", args: { key: "over stdio" } } });
      expect(textOf(ran)).toContain("over stdio");
    } finally {
      await modern.close();
    }
  }, 30_000);
});

/** A v2 client pinned to 2026-07-28 over HTTP with `token`, answering every question with `answer` (and keeping what it was asked). */
async function modernClient(answer: (params: { message: string }) => Record<string, unknown>, token = TEST_TOKEN) {
  const asked: { message: string }[] = [];
  const client = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params as { message: string });
    return { action: "accept" as const, content: answer(request.params as { message: string }) as Record<string, string | number | boolean> };
  });
  await client.connect(httpServe(server.url, token));
  return { client, asked };
}

const ASKING_ENVELOPE = envelope({ elicitation: { form: {} } });

describe("a backend's question to a 2026-07-28 client", () => {
  it("from a 2026-07-28 backend (input_required) comes back as input_required from run_tool, and the answer reaches the backend", async () => {
    const { client, asked } = await modernClient(() => ({ confirm: true }));
    try {
      const result = await client.callTool({ name: "run_tool", arguments: { tool_id: "modern:ask", args: { env: "prod" } } });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toMatch(/^\[modern\] Deploy to prod\?/);
      expect(textOf(result)).toContain("deployed to prod");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("from a 2025 backend (a pushed elicitation) comes back as input_required too", async () => {
    const { client, asked } = await modernClient(() => ({ name: "Ada Lovelace", check: true, email: "ada@example.com" }));
    try {
      const result = await client.callTool({ name: "run_tool", arguments: { tool_id: "everything:trigger-elicitation-request" } });
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toMatch(/^\[everything\] /);
      expect(textOf(result)).toContain("Ada Lovelace");
    } finally {
      await client.close();
    }
  }, 30_000);

  it("refuses a tampered requestState, another token's, and one used twice", async () => {
    const first = await post("tools/call", { name: "run_tool", arguments: { tool_id: "modern:ask", args: { env: "stage" } } }, {}, ASKING_ENVELOPE);
    const asked = first.body.result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: { message: string } }>;
      requestState: string;
    };
    expect(asked.resultType).toBe("input_required");
    const [key, question] = Object.entries(asked.inputRequests)[0]!;
    expect(question.method).toBe("elicitation/create");
    expect(question.params.message).toMatch(/^\[modern\] Deploy to stage\?/);
    const answer = { [key]: { action: "accept", content: { confirm: true } } };
    const retry = (requestState: string, token = TEST_TOKEN) =>
      post(
        "tools/call",
        { name: "run_tool", arguments: { tool_id: "modern:ask", args: { env: "stage" } }, inputResponses: answer, requestState },
        { authorization: `Bearer ${token}` },
        ASKING_ENVELOPE,
      );
    // One character inside the signature, changed: every bit of it counts (the last character's low bits are padding a decoder may ignore).
    const at = asked.requestState.length - 10;
    const tampered = asked.requestState.slice(0, at) + (asked.requestState[at] === "A" ? "B" : "A") + asked.requestState.slice(at + 1);
    for (const refused of [await retry(tampered), await retry(asked.requestState, SECOND_TOKEN)]) {
      expect((refused.body.error as { code: number; message: string }).message).toMatch(/Invalid or expired requestState/);
    }
    const answered = await retry(asked.requestState);
    expect(textOf(answered.body.result)).toContain("deployed to stage");
    const replayed = await retry(asked.requestState);
    expect(textOf(replayed.body.result)).toMatch(/is over .* run the tool again/);
  }, 30_000);
});

describe("progress and cancellation for a 2026-07-28 client", () => {
  it("progress of a 2026-07-28 backend reaches the client, and cancelling the call stops the backend", async () => {
    const client = new ClientV2({ name: "modern", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(httpServe(server.url));
    const controller = new AbortController();
    const steps: number[] = [];
    try {
      const call = client
        .callTool(
          { name: "run_tool", arguments: { tool_id: "modern:slow", args: { steps: 100, delayMs: 100 } } },
          {
            signal: controller.signal,
            onprogress: ({ progress }) => {
              steps.push(progress);
              if (steps.length === 2) controller.abort(new Error("the user went away"));
            },
          },
        )
        .catch((error: unknown) => error);
      expect(await call).toBeInstanceOf(Error);
      expect(steps.length).toBeGreaterThanOrEqual(2);
      expect(
        await eventually(
          () => (existsSync(aborted) ? readFileSync(aborted, "utf8") : ""),
          (text) => text.includes("aborted"),
          10_000,
        ),
      ).toContain("aborted");
    } finally {
      await client.close();
    }
  }, 30_000);
});
