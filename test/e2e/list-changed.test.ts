/**
 * Backends change: a tools/list_changed notification re-indexes that
 * backend's tools, and search sees the new tool without a restart; the
 * semantic index embeds only the tool that changed.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpBackend, type HttpBackend } from "../fixtures/http-backend.js";
import { openSession, tempDir, type Session } from "../helpers/harness.js";
import { writeVectors } from "../helpers/semantic.js";

let http: HttpBackend;
let session: Session;

beforeAll(async () => {
  http = await startHttpBackend();
  session = await openSession({ mcpServers: { weather: { type: "http", url: http.url } } }, { builtinCatalog: false });
});

afterAll(async () => {
  await session?.close();
  await http?.close();
});

async function until(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition not met in time");
}

describe("tools/list_changed", () => {
  it("re-indexes the backend and finds the new tool", async () => {
    const before = await session.call("search_tools", { query: "tide tables harbour" });
    expect(before.hits.map((h: { id: string }) => h.id)).not.toContain("weather:tide_tables");
    http.addTool("tide_tables", "Tide tables for a harbour: high and low water times.");
    await until(async () => session.app.registry.get("weather:tide_tables") !== undefined);
    const after = await session.call("search_tools", { query: "tide tables harbour" });
    expect(after.hits[0].id).toBe("weather:tide_tables");
    const ran = await session.call("run_tool", { tool_id: "weather:tide_tables", args: {} });
    expect(ran).toMatchObject({ ok: true, result: "tide_tables ran" });
    expect(session.app.backends.state("weather")?.toolCount).toBe(3);
  });
});

describe("tools/list_changed with semantic search", () => {
  it("embeds only the changed tool", async () => {
    const backend = await startHttpBackend();
    const dir = tempDir();
    const s = await openSession(
      {
        mcpServers: { weather: { type: "http", url: backend.url } },
        metatools: { code: { enabled: false }, search: { embedder: { type: "static", vectors: writeVectors(dir) }, embeddingCache: join(dir, "cache") } },
      },
      { builtinCatalog: false },
    );
    try {
      const semantic = s.app.search.semantic!;
      await semantic.whenIdle();
      const before = semantic.embedded;
      const indexed = semantic.size;
      backend.addTool("rain_alerts", "Send a message when rain is forecast.");
      await until(async () => s.app.registry.get("weather:rain_alerts") !== undefined);
      await semantic.whenIdle();
      expect(semantic.embedded - before).toBe(1);
      expect(semantic.size).toBe(indexed + 1);
      const found = await s.call("search_tools", { query: "forecast email", mode: "semantic", namespace: "weather" });
      expect(found.hits[0].id).toBe("weather:rain_alerts");
    } finally {
      await s.close();
      await backend.close();
    }
  });
});
