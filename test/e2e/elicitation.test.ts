/**
 * A backend's questions during a call reach the client that made it:
 * server-everything's elicitation and sampling tools, through metatools,
 * answered by a real SDK client that declares both; refused clearly for a
 * client that declares neither.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CreateMessageRequestSchema, ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetatools, type Metatools } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createSessionServer } from "../../src/serving.js";
import { servers, tempDir } from "../helpers/harness.js";

const MEDIA = fileURLToPath(new URL("../fixtures/media-server.mjs", import.meta.url));

let app: Metatools;

beforeAll(async () => {
  app = createMetatools(parseConfig({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }, { file: join(tempDir(), "metatools.json") }));
  await app.start();
});
afterAll(() => app.close());

/** A client of its own session, declaring `capabilities`. */
async function connect(capabilities: ConstructorParameters<typeof Client>[1], on: Metatools = app): Promise<{ client: Client; run(tool: string, args?: Record<string, unknown>): Promise<Record<string, any>>; close(): Promise<void> }> {
  const server = createSessionServer(on);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "asking-client", version: "1" }, capabilities);
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    client,
    run: async (tool, args = {}) => JSON.parse(((await client.callTool({ name: "run_tool", arguments: { tool_id: tool, args } })).content as { text: string }[])[0]!.text),
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
  it("each gets only its own questions: a first overlap is refused, then the sessions take turns", async () => {
    // A backend that has not asked anyone yet.
    const own = createMetatools(parseConfig({ mcpServers: { media: { command: process.execPath, args: [MEDIA] } }, metatools: { code: { enabled: false } } }, { file: join(tempDir(), "metatools.json") }));
    await own.start();
    const questions: string[] = [];
    const open = async (name: string, delayMs: number) => {
      const session = await connect({ capabilities: { elicitation: {} } }, own);
      session.client.setRequestHandler(ElicitRequestSchema, async () => {
        questions.push(name);
        await new Promise((r) => setTimeout(r, delayMs));
        return { action: "accept", content: { name: `user ${name}` } };
      });
      return session;
    };
    const a = await open("a", 300);
    const b = await open("b", 0);
    // The question comes 200 ms into the call: both calls are surely open by then.
    const run = (session: typeof a) => session.run("media:ask", { delay_ms: 200 });
    try {
      // Both calls open before the backend ever asked: whose question is it? Asked of neither.
      const first = await Promise.all([run(a), run(b)]);
      expect(questions).toEqual([]);
      for (const body of first) {
        expect(body.ok).toBe(false);
        expect(JSON.stringify(body)).toMatch(/cannot tell whose it is/);
      }
      // Now known to ask: the clients take turns, and each answer comes from its own client.
      const [again, turn] = await Promise.all([run(a), new Promise((r) => setTimeout(r, 50)).then(() => run(b))]);
      expect(JSON.stringify(again)).toContain("user a");
      expect(JSON.stringify(turn)).toContain("user b");
      expect(questions).toEqual(["a", "b"]);
    } finally {
      await a.close();
      await b.close();
      await own.close();
    }
  });
});
