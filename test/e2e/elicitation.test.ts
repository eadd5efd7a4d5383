/**
 * A backend's questions during a call reach the client that made it:
 * server-everything's elicitation and sampling tools, through metatools,
 * answered by a real SDK client that declares both; refused clearly for a
 * client that declares neither.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetatools, type Metatools } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createSessionServer } from "../../src/serving.js";
import { CLI } from "../helpers/cli.js";
import { servers, tempDir, testHomes } from "../helpers/harness.js";
import { httpClientTransport, startHttp } from "../helpers/serve.js";

const MEDIA = fileURLToPath(new URL("../fixtures/media-server.mjs", import.meta.url));

let app: Metatools;

beforeAll(async () => {
  app = createMetatools(
    parseConfig({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }, { file: join(tempDir(), "metatools.json") }),
  );
  await app.start();
});
afterAll(() => app.close());

/** A client of its own session, declaring `capabilities`. */
async function connect(
  capabilities: ConstructorParameters<typeof Client>[1],
  on: Metatools = app,
): Promise<{ client: Client; run(tool: string, args?: Record<string, unknown>): Promise<Record<string, any>>; close(): Promise<void> }> {
  const server = createSessionServer(on);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "asking-client", version: "1" }, capabilities);
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    run: async (tool, args = {}) =>
      JSON.parse(((await client.callTool({ name: "run_tool", arguments: { tool_id: tool, args } })).content as { text: string }[])[0]!.text),
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe("elicitation and sampling", () => {
  it("a backend's elicitation reaches the calling client with its namespace, and the answer goes back", async () => {
    const asked: ElicitRequest["params"][] = [];
    const session = await connect({ capabilities: { elicitation: {} } });
    session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada Lovelace", check: true, email: "ada@example.com" } };
    });
    try {
      const body = await session.run("everything:trigger-elicitation-request");
      expect(body.ok).toBe(true);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toMatch(/^\[everything\] /);
      expect(JSON.stringify(body)).toContain("Ada Lovelace");
    } finally {
      await session.close();
    }
  });

  it("a backend's sampling request reaches the calling client's model, and its answer goes back", async () => {
    const session = await connect({ capabilities: { sampling: {} } });
    let prompted = "";
    session.client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      prompted = JSON.stringify(request.params.messages);
      return { model: "test-model", role: "assistant", content: { type: "text", text: "a haiku about proxies" } };
    });
    try {
      const body = await session.run("everything:trigger-sampling-request", { prompt: "Write a haiku about proxies" });
      expect(body.ok).toBe(true);
      expect(prompted).toContain("Write a haiku about proxies");
      expect(JSON.stringify(body)).toContain("a haiku about proxies");
    } finally {
      await session.close();
    }
  });

  it("a client that declares neither gets a clear refusal, not a hang", async () => {
    const session = await connect({ capabilities: {} });
    try {
      const elicit = await session.run("everything:trigger-elicitation-request");
      expect(elicit.ok).toBe(false);
      expect(JSON.stringify(elicit)).toMatch(/does not support elicitation/);
      const sample = await session.run("everything:trigger-sampling-request", { prompt: "Write a haiku" });
      expect(sample.ok).toBe(false);
      expect(JSON.stringify(sample)).toMatch(/does not support sampling/);
    } finally {
      await session.close();
    }
  });
});

describe("two sessions on one backend", () => {
  it("a question never reaches another session's client: an overlap before the backend was known to ask is refused, then the sessions take turns", async () => {
    // A backend that has not asked anyone yet.
    const own = createMetatools(
      parseConfig(
        { mcpServers: { media: { command: process.execPath, args: [MEDIA] } }, metatools: { code: { enabled: false } } },
        { file: join(tempDir(), "metatools.json") },
      ),
    );
    await own.start();
    // Each question carries the tag of the call that asked it; each client answers with its own name.
    const misrouted: string[] = [];
    const open = async (name: string) => {
      const session = await connect({ capabilities: { elicitation: {} } }, own);
      session.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        if (!request.params.message.includes(`(${name})`)) misrouted.push(`${name} was asked: ${request.params.message}`);
        return { action: "accept", content: { name } };
      });
      return session;
    };
    const a = await open("a");
    const b = await open("b");
    // The question comes 200 ms into the call.
    const run = (session: typeof a, tag: string) => session.run("media:ask", { delay_ms: 200, tag });
    const answeredOrRefused = (body: Record<string, any>, name: string) =>
      body.ok ? expect(body.result).toBe(`answered: {"name":"${name}"}`) : expect(JSON.stringify(body)).toMatch(/cannot tell whose it is/);
    try {
      // Both calls open at once: each is answered by its own client or refused, never answered by the other.
      const [first, second] = await Promise.all([run(a, "a"), run(b, "b")]);
      answeredOrRefused(first, "a");
      answeredOrRefused(second, "b");
      // Known to ask by now: the sessions take turns, and both are answered, each by its own client.
      const [again, turn] = await Promise.all([run(a, "a"), new Promise((r) => setTimeout(r, 50)).then(() => run(b, "b"))]);
      expect(again.result).toBe('answered: {"name":"a"}');
      expect(turn.result).toBe('answered: {"name":"b"}');
      expect(misrouted).toEqual([]);
    } finally {
      await a.close();
      await b.close();
      await own.close();
    }
  });
});

describe("through the real server", () => {
  const config = () => {
    const file = join(tempDir(), "metatools.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { media: { command: process.execPath, args: [MEDIA] } }, metatools: { code: { enabled: false } } }));
    return file;
  };
  /** A client that answers every question with `name`. */
  const answering = (name: string, asked: string[]) => {
    const client = new Client({ name: `client-${name}`, version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`${name}: ${request.params.message}`);
      return { action: "accept", content: { name } };
    });
    return client;
  };
  const ask = async (client: Client, delayMs: number): Promise<string> =>
    JSON.parse(
      ((await client.callTool({ name: "run_tool", arguments: { tool_id: "media:ask", args: { delay_ms: delayMs } } })).content as { text: string }[])[0]!.text,
    ).result;

  it("over stdio: the question reaches the client, namespaced, and its answer the backend", async () => {
    const asked: string[] = [];
    const client = answering("ada", asked);
    const env = { ...getDefaultEnvironment(), ...testHomes() };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config()], env, stderr: "ignore" }));
    try {
      expect(await ask(client, 0)).toBe('answered: {"name":"ada"}');
      expect(asked).toEqual(["ada: [media] What is your name?"]);
    } finally {
      await client.close();
    }
  });

  it("over stdio, backends are told what the client declared: for a client that declares neither, everything's tools that ask are absent", async () => {
    const env = { ...getDefaultEnvironment(), ...testHomes() };
    const cases: [ConstructorParameters<typeof Client>[1], boolean][] = [
      [{ capabilities: {} }, false],
      [{ capabilities: { elicitation: {}, sampling: {} } }, true],
    ];
    for (const [capabilities, listed] of cases) {
      // A config of its own each: no snapshot of the other client's tool list.
      const file = join(tempDir(), "metatools.json");
      writeFileSync(file, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
      const client = new Client({ name: "stdio-client", version: "1" }, capabilities);
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", file], env, stderr: "ignore" }));
      try {
        for (const tool of ["everything:trigger-elicitation-request", "everything:trigger-sampling-request"]) {
          const body = JSON.parse(((await client.callTool({ name: "describe_tool", arguments: { tool_id: tool } })).content as { text: string }[])[0]!.text);
          expect(body.ok !== false, `${tool} listed for ${JSON.stringify(capabilities)}`).toBe(listed);
        }
      } finally {
        await client.close();
      }
    }
  });

  it("over HTTP: two sessions' questions each reach their own client, the second waiting its turn", async () => {
    const server = await startHttp(["--config", config()]);
    const asked: string[] = [];
    const a = answering("a", asked);
    const b = answering("b", asked);
    await a.connect(httpClientTransport(server.url));
    await b.connect(httpClientTransport(server.url));
    try {
      // The first question tells metatools the backend asks; from then on the sessions take turns on it.
      expect(await ask(a, 0)).toBe('answered: {"name":"a"}');
      const [fromA, fromB] = await Promise.all([ask(a, 150), new Promise((r) => setTimeout(r, 50)).then(() => ask(b, 0))]);
      expect(fromA).toBe('answered: {"name":"a"}');
      expect(fromB).toBe('answered: {"name":"b"}');
      expect(asked).toEqual(["a: [media] What is your name?", "a: [media] What is your name?", "b: [media] What is your name?"]);
    } finally {
      await a.close();
      await b.close();
      await server.stop();
    }
  });
});
