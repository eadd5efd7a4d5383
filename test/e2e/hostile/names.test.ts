/**
 * Tool names that are not valid MCP tool names (control characters,
 * newlines, spaces, 20,000 characters) are served in a safe spelling with a
 * note, are still called by their own name, and cannot break paging.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, type Session } from "../../helpers/harness.js";

let session: Session;
const fixture = fileURLToPath(new URL("../../fixtures/odd-names-server.mjs", import.meta.url));
const VALID = /^[A-Za-z0-9_./-]{1,128}$/;

beforeAll(async () => {
  session = await openSession({ mcpServers: { odd: { command: process.execPath, args: [fixture] } }, metatools: { code: { enabled: false } } });
});
afterAll(() => session?.close());

async function allHits(query: string): Promise<Record<string, any>[]> {
  const hits: Record<string, any>[] = [];
  let offset = 0;
  for (let page = 0; page < 20; page++) {
    const reply = await session.call("search_tools", { query, namespace: "odd", offset, limit: 3 });
    hits.push(...reply.hits);
    if (reply.next_offset === undefined) return hits;
    // Paging always moves forward: an endless loop is the bug this guards against.
    expect(reply.next_offset).toBeGreaterThan(offset);
    offset = reply.next_offset;
  }
  throw new Error("paging did not end");
}

describe("tool names that are not valid MCP names", () => {
  it("every tool is served under a valid name, and paging moves forward to the end", async () => {
    const hits = await allHits("weather forecasts");
    expect(hits).toHaveLength(7);
    for (const hit of hits) expect(hit.id.slice("odd:".length)).toMatch(VALID);
    expect(new Set(hits.map((h) => h.id)).size).toBe(7);
    const text = JSON.stringify(hits);
    expect(text).not.toMatch(/[\u0080-\u009f]/);
    expect(hits.map((h) => h.id)).toContain("odd:get_weather");
  });

  it("describe_tool says what the backend calls it, printably", async () => {
    const reply = await session.call("describe_tool", { tool_id: "odd:csi_31mred" });
    expect(reply.id).toBe("odd:csi_31mred");
    expect(reply.renamed).toContain('"csi\\u009b31mred"');
    expect(reply.title).toBe("Red2J title");
  });

  it("run_tool reaches the backend by its own name", async () => {
    const reply = await session.call("run_tool", { tool_id: "odd:two_lines", args: { city: "Oslo" } });
    expect(reply.ok).toBe(true);
    expect(JSON.stringify(reply)).toContain('{\\"called\\":\\"two\\\\nlines\\"}');
    const long = (await allHits("weather forecasts")).find((h) => h.id.length > 100)!;
    const ran = await session.call("run_tool", { tool_id: long.id, args: {} });
    expect(JSON.stringify(ran)).toContain("w".repeat(100));
  });

  it("names that spell alike stay apart", async () => {
    const ids = (await allHits("weather forecasts")).map((h) => h.id).filter((id) => id.startsWith("odd:a_b"));
    expect(ids).toHaveLength(2);
  });
});

describe("access rules over renamed tools", () => {
  it("a deny rule in the backend's own spelling hides the renamed tool too", async () => {
    const denied = await openSession({
      mcpServers: { odd: { command: process.execPath, args: [fixture] } },
      metatools: { code: { enabled: false }, tools: { deny: ["odd:get weather"] } },
    });
    try {
      const ids = (await denied.call("search_tools", { query: "weather forecasts", namespace: "odd", limit: 20 })).hits.map((h: { id: string }) => h.id);
      expect(ids).toHaveLength(6);
      expect(ids).not.toContain("odd:get_weather");
      expect(await denied.call("run_tool", { tool_id: "odd:get_weather", args: {} })).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    } finally {
      await denied.close();
    }
  });
});
