/**
 * A modern-only backend (protocol revision 2026-07-28, which refuses the 2025
 * `initialize`) behind metatools, over stdio and over Streamable HTTP: its
 * tools are found and run; its question (an `input_required` result) reaches
 * the calling client, a 2025 one, as an elicitation request, and the answer
 * goes back; its progress reaches the client; a client's cancellation stops
 * its work. The backend is a real process (test/fixtures/modern-server.mjs),
 * the client a real SDK client of metatools' own MCP server.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetatools, type Metatools } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createSessionServer } from "../../src/serving.js";
import { eventually } from "../helpers/eventually.js";
import { servers, startModernHttpBackend, tempDir } from "../helpers/harness.js";

describe.each(["stdio", "http"] as const)("a modern-only backend over %s", (transport) => {
  let app: Metatools;
  let marker: string;
  let http: { url: string; close(): Promise<void> } | undefined;

  beforeAll(async () => {
    marker = join(tempDir(), "aborted.log");
    if (transport === "http") http = await startModernHttpBackend(marker);
    const backend = transport === "stdio" ? servers.modern(marker) : { type: "http" as const, url: http!.url };
    app = createMetatools(
      parseConfig({ mcpServers: { modern: backend }, metatools: { code: { enabled: false } } }, { file: join(tempDir(), "metatools.json") }),
    );
    await app.start();
  });
  afterAll(async () => {
    await app?.close();
    await http?.close();
  });

  /** A client of its own session (SDK 1.x, protocol 2025-11-25) that answers questions. */
  async function connect() {
    const server = createSessionServer(app);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "legacy-client", version: "1" }, { capabilities: { elicitation: {} } });
    await server.connect(serverSide);
    await client.connect(clientSide);
    const asked: ElicitRequest["params"][] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { confirm: true } };
    });
    const call = async (name: string, args: Record<string, unknown>) =>
      JSON.parse(((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]!.text) as Record<string, any>;
    return {
      client,
      asked,
      call,
      close: async () => {
        await client.close();
        await server.close();
      },
    };
  }

  it("is reached in the 2026-07-28 era: search finds its tools, and run_tool runs them", async () => {
    const info = app.backends.state("modern")?.info;
    expect(info).toMatchObject({ name: "modern-fixture", era: "modern", protocolVersion: "2026-07-28" });
    const session = await connect();
    try {
      const found = await session.call("search_tools", { query: "echo the given text back" });
      expect(found.hits.map((h: { id: string }) => h.id)).toContain("modern:echo");
      const echo = await session.call("run_tool", { tool_id: "modern:echo", args: { text: "hello modern" } });
      expect(echo.ok).toBe(true);
      expect(JSON.stringify(echo)).toContain("echo:hello modern");
    } finally {
      await session.close();
    }
  });

  it("its question reaches the calling client as an elicitation request, namespaced, and the answer reaches the backend", async () => {
    const session = await connect();
    try {
      const body = await session.call("run_tool", { tool_id: "modern:ask", args: { env: "prod" } });
      expect(session.asked).toHaveLength(1);
      expect(session.asked[0]!.message).toMatch(/^\[modern\] Deploy to prod\?/);
      expect(body.ok).toBe(true);
      expect(JSON.stringify(body)).toContain("deployed to prod (state asked-prod)");
    } finally {
      await session.close();
    }
  });

  it("its task is followed to its result, its question reaching the client and its status messages coming as progress", async () => {
    const session = await connect();
    try {
      const progress: string[] = [];
      const result = await session.client.callTool(
        { name: "run_tool", arguments: { tool_id: "modern:report", args: { topic: "tides", steps: 4, delayMs: 150, confirm: true } } },
        undefined,
        { onprogress: (p) => void (p.message && progress.push(p.message)), timeout: 30_000 },
      );
      // This client answers every question { confirm: true }: the task got the answer, and publishes nothing.
      expect(JSON.stringify(result)).toContain("report on tides kept private");
      expect(session.asked.map((q) => q.message)).toEqual(["[modern] Publish the report on tides?"]);
      expect(progress.some((message) => /section \d of 4/.test(message))).toBe(true);
    } finally {
      await session.close();
    }
  }, 30_000);

  it("its progress reaches the client", async () => {
    const session = await connect();
    try {
      const progress: { progress: number; message?: string }[] = [];
      const result = await session.client.callTool({ name: "run_tool", arguments: { tool_id: "modern:slow", args: { steps: 3, delayMs: 50 } } }, undefined, {
        onprogress: (p) => void progress.push({ progress: p.progress, message: p.message }),
      });
      expect(JSON.stringify(result)).toContain("done 3");
      // The last step's notification races the result (as with a 2025 backend): the steps before it are all there, in order.
      expect(progress.map((p) => p.progress).slice(0, 2)).toEqual([1, 2]);
      expect(progress[1]!.message).toContain("step 2");
    } finally {
      await session.close();
    }
  });

  it("cancelling the client's call stops the backend's work", async () => {
    const session = await connect();
    try {
      const controller = new AbortController();
      let steps = 0;
      const call = session.client.callTool({ name: "run_tool", arguments: { tool_id: "modern:slow", args: { steps: 200, delayMs: 100 } } }, undefined, {
        signal: controller.signal,
        onprogress: () => {
          steps++;
          if (steps === 2) controller.abort(new Error("the user went away"));
        },
        timeout: 60_000,
      });
      await expect(call).rejects.toThrow();
      const aborted = await eventually(
        () => (existsSync(marker) ? readFileSync(marker, "utf8") : ""),
        (text) => text.includes("aborted"),
      );
      expect(aborted).toContain("aborted");
      // The backend is still there for the next call.
      const echo = await session.call("run_tool", { tool_id: "modern:echo", args: { text: "after" } });
      expect(echo.ok).toBe(true);
    } finally {
      await session.close();
    }
  }, 30_000);
});
