/**
 * Acceptance: no response exceeds 10,000 bytes over a 5,000-tool catalog with
 * broad queries; `total` is exact; every overflow hint names a real value
 * from the result, and its `next` call works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, tempDir, writeSyntheticTools, type Session } from "../helpers/harness.js";

const BUDGET = 10_000;
let session: Session;

beforeAll(async () => {
  session = await openSession(
    {
      mcpServers: {
        alpha: { type: "catalog", tools: writeSyntheticTools(tempDir(), 3000) },
        beta: { type: "catalog", tools: writeSyntheticTools(tempDir(), 2000, 7) },
      },
    },
    { builtinCatalog: false },
  );
});

afterAll(() => session?.close());

async function sized(name: string, args: Record<string, unknown>) {
  const { text, isError } = await session.raw(name, args);
  expect(isError).toBe(false);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(BUDGET);
  return JSON.parse(text);
}

const broad: Record<string, unknown>[] = [
  { query: "a" },
  { query: "get" },
  { query: "" },
  { query: "get", namespace: "" },
  { query: "get", namespace: [] },
  { query: "get", tags: [] },
  { query: "a", limit: 50 },
  { query: "", limit: 50, offset: 4990 },
  { query: "list user records paging filters", limit: 50 },
];

describe("broad queries on 5,000 tools", () => {
  it("loaded every tool", () => {
    const counts = Object.fromEntries(session.app.registry.namespaces().map((n) => [n.namespace, n.count]));
    expect([counts.alpha, counts.beta]).toEqual([3000, 2000]);
  });

  it.each(broad)("%j stays within the budget and follows its own hint", async (args) => {
    const body = await sized("search_tools", args);
    expect(body.total).toBeGreaterThanOrEqual(body.shown);
    expect(body.by_namespace.reduce((s: number, n: { count: number }) => s + n.count, 0)).toBe(body.total);
    if (body.total > body.offset + body.shown) {
      const guidance: string = body.hint ?? body.warning;
      expect(guidance).toBeTruthy();
      const realValues = [String(body.next_offset), ...body.by_namespace.map((n: { namespace: string }) => n.namespace)];
      expect(realValues.some((v) => guidance.includes(v))).toBe(true);
      expect(body.next.tool).toBe("search_tools");
      const followed = await sized(body.next.tool, body.next.arguments);
      expect(followed.ok).not.toBe(false);
      expect(followed.hits.length).toBeGreaterThan(0);
    }
  });

  it("shrinks a page that would not fit and says where the rest starts", async () => {
    const small = await openSession(
      { mcpServers: { alpha: { type: "catalog", tools: writeSyntheticTools(tempDir(), 500) } }, metatools: { budgets: { inlineBytes: 3000 } } },
      { builtinCatalog: false },
    );
    try {
      const { text } = await small.raw("search_tools", { query: "get", limit: 50 });
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(3000);
      const body = JSON.parse(text);
      expect(body.shown).toBeGreaterThan(0);
      expect(body.shown).toBeLessThan(Math.min(50, body.total));
      expect(body.warning).toContain(`offset ${body.next_offset}`);
      expect(body.next.arguments.offset).toBe(body.next_offset);
      const rest = JSON.parse((await small.raw(body.next.tool, body.next.arguments)).text);
      expect(rest.offset).toBe(body.next_offset);
      expect(rest.hits[0].id).not.toBe(body.hits[0].id);
    } finally {
      await small.close();
    }
  });

  /** Pages through every result of `query`: each page has the first page's total, and the pages hold exactly total distinct ids. */
  async function pageThrough(query: string, mode?: string): Promise<number> {
    const first = await sized("search_tools", { query, limit: 50, ...(mode ? { mode } : {}) });
    const seen = new Set<string>();
    let offset = 0;
    for (let page = 0; page < 200 && offset < first.total; page++) {
      const body = await sized("search_tools", { query, limit: 50, offset, ...(mode ? { mode } : {}) });
      expect(body.total).toBe(first.total);
      for (const hit of body.hits) seen.add(hit.id);
      offset += body.shown;
    }
    expect(seen.size).toBe(first.total);
    return first.total;
  }

  it('total for "" is exact: paging to the end yields every tool once', async () => {
    // Every tool: the 5,000 synthetic ones and the built-in code and metatools tools.
    expect(await pageThrough("")).toBe(session.app.registry.size);
  });

  it.each(["get", "invoice"])("total for %j is exact in bm25 mode: paging to the end yields exactly total distinct ids", async (query) => {
    expect(await pageThrough(query, "bm25")).toBeGreaterThan(100);
  });

  // Hybrid fuses a fixed pool of each leg and then follows BM25's order (search/fusion.ts fuseHead): pages never overlap.
  for (const query of ["get", "invoice"]) {
    it(`total for "${query}" is exact in hybrid mode too`, async () => {
      await session.app.search.semantic!.whenIdle();
      await pageThrough(query);
    });
  }

  it("describes five tools at full detail within the budget", async () => {
    const ids = (await sized("search_tools", { query: "invoice", limit: 5 })).hits.map((h: { id: string }) => h.id);
    const body = await sized("describe_tool", { tool_ids: ids, detail_level: "full" });
    expect(body.tools.length + (body.not_shown?.length ?? 0)).toBe(5);
  });
});
