/**
 * A very large namespace is indexed in slices, in the background
 * (src/search/lexical.ts): searches made meanwhile are answered at once,
 * from the index as it was and saying so; the new index ranks exactly as
 * one built at once; a namespace replaced again mid-build ends with its
 * newest tools; and the index cache keeps what a build in slices made.
 * Here "very large" is lowered to a few hundred tools.
 */
import { describe, expect, it } from "vitest";
import { syntheticTools } from "../../../src/bench/synthetic.js";
import { CatalogIndex } from "../../../src/catalog/match.js";
import type { UpstreamTool } from "../../../src/model/tool.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { SearchEngine } from "../../../src/search/engine.js";
import { EARLY_MIN_TOOLS, IndexCache } from "../../../src/search/index-cache.js";
import { loadBuiltinEmbedder } from "../../../src/embed/builtin.js";
import type { Embedder } from "../../../src/embed/types.js";
import { SemanticIndex } from "../../../src/search/semantic.js";
import { silentLogger } from "../../../src/util/log.js";
import { tempDir } from "../../helpers/harness.js";

const SLICED_FROM = 200;

function tools(count: number, seed = 1): UpstreamTool[] {
  return syntheticTools(count, seed).map(({ name, description, inputSchema }) => ({ name, description, inputSchema }));
}

const search = (engine: SearchEngine, query: string) => engine.search({ query, limit: 8, offset: 0, namespaces: [], tags: [], mode: "bm25" });

/** What a search answers, for comparing two engines. */
async function ranking(engine: SearchEngine, query: string): Promise<unknown> {
  const outcome = await search(engine, query);
  return { total: outcome.total, hits: outcome.hits.map((h) => [h.record.id, h.score]), note: outcome.modeNote };
}

describe("a very large namespace, indexed in slices", () => {
  it("is searched meanwhile as it was (nothing, the first time), says so, and then ranks as a build at once", async () => {
    const list = tools(600);
    const registry = new ToolRegistry(new CatalogIndex([]));
    const engine = new SearchEngine(registry, { slicedFrom: SLICED_FROM });
    registry.setNamespace("shop", list, undefined, true);
    let turned = false;
    setImmediate(() => (turned = true));
    const during = await search(engine, "create invoice");
    expect(during.total).toBe(0);
    expect(during.modeNote).toMatch(/still indexing shop/);
    await engine.whenIdle();
    // The build let the event loop turn before it was done.
    expect(turned).toBe(true);
    const atOnce = new ToolRegistry(new CatalogIndex([]));
    const reference = new SearchEngine(atOnce);
    atOnce.setNamespace("shop", list, undefined, true);
    for (const query of ["create invoice", "list the github issues by date range", "export order as CSV"]) {
      const got = await ranking(engine, query);
      expect(got).toEqual(await ranking(reference, query));
      expect((got as { total: number }).total).toBeGreaterThan(0);
    }
  });

  it("is searchable by its words before its tools are embedded: the embedding starts once the words are indexed", async () => {
    const table = loadBuiltinEmbedder();
    const events: string[] = [];
    const embedder: Embedder = {
      id: table.id,
      dimensions: table.dimensions,
      embed: (texts, role) => {
        if (role !== "query") events.push("embed");
        return table.embed(texts, role);
      },
    };
    const registry = new ToolRegistry(new CatalogIndex([]));
    const semantic = new SemanticIndex(() => Promise.resolve(embedder), { dir: undefined }, silentLogger);
    const engine = new SearchEngine(registry, { slicedFrom: SLICED_FROM, semantic });
    registry.setNamespace("shop", tools(600), undefined, true);
    // Poll a turn at a time: note when the words are searchable.
    while (!events.includes("words")) {
      await new Promise((resolve) => setImmediate(resolve));
      if ((await search(engine, "create invoice")).total > 0) events.push("words");
    }
    await engine.whenIdle();
    expect(events.indexOf("words")).toBeGreaterThanOrEqual(0);
    expect(events.indexOf("embed")).toBeGreaterThan(events.indexOf("words"));
    expect(semantic.size).toBe(600);
  });

  it("ends with the newest tools when the namespace is replaced mid-build, and a small replacement wins over a large one", async () => {
    const registry = new ToolRegistry(new CatalogIndex([]));
    const engine = new SearchEngine(registry, { slicedFrom: SLICED_FROM });
    registry.setNamespace("shop", tools(600, 1), undefined, true);
    const newest = tools(700, 2);
    registry.setNamespace("shop", newest, undefined, true);
    await engine.whenIdle();
    const ids = new Set(registry.namespaceRecords("shop").map((r) => r.id));
    const outcome = await search(engine, "create");
    expect(outcome.total).toBeGreaterThan(0);
    expect(outcome.hits.every((h) => ids.has(h.record.id))).toBe(true);
    // The whole namespace counts once, as the newest list has it.
    expect(outcome.byNamespace).toEqual([{ namespace: "shop", count: outcome.total }]);
    // A large list, then at once a small one (indexed at once): the large one's build is dropped.
    registry.setNamespace("shop", tools(800, 3), undefined, true);
    registry.setNamespace("shop", tools(5, 4), undefined, true);
    await engine.whenIdle();
    const small = new Set(registry.namespaceRecords("shop").map((r) => r.id));
    const after = await search(engine, "*");
    expect(after.total).toBe(5);
    expect(after.hits.every((h) => small.has(h.record.id))).toBe(true);
  });

  it("stops at its next slice when the engine closes, installing nothing", async () => {
    const registry = new ToolRegistry(new CatalogIndex([]));
    const engine = new SearchEngine(registry, { slicedFrom: SLICED_FROM });
    registry.setNamespace("shop", tools(600), undefined, true);
    engine.close();
    await engine.whenIdle();
    expect((await search(engine, "create")).total).toBe(0);
  });

  it("keeps what it built in the index cache, which the next start reads back", async () => {
    const dir = tempDir();
    const list = tools(EARLY_MIN_TOOLS + 50);
    const open = () => {
      const registry = new ToolRegistry(new CatalogIndex([]));
      const engine = new SearchEngine(registry, {
        slicedFrom: SLICED_FROM,
        indexCache: new IndexCache(dir, "/project/metatools.json", "1.0.0", { checkAfterMs: 0 }),
      });
      registry.setNamespace("shop", list, undefined, true);
      return engine;
    };
    const first = open();
    await first.whenIdle();
    const built = await ranking(first, "create invoice");
    first.flush();
    // The next start: the cached index is taken at once (no build, no note), and ranks the same.
    const second = open();
    expect(await ranking(second, "create invoice")).toEqual(built);
    expect((await search(second, "create invoice")).modeNote).toBeUndefined();
    await second.whenChecked();
    await second.whenIdle();
    expect(await ranking(second, "create invoice")).toEqual(built);
  });
});
