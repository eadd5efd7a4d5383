/**
 * search/engine.ts through its signals: the mode chooses which signals run (signals/index.ts), and a signal that
 * cannot rank at all (a model runtime that died on the query) leaves the search to bm25, saying why.
 */
import { describe, expect, it } from "vitest";
import { loadBuiltinEmbedder } from "../../../src/embed/builtin.js";
import type { Embedder } from "../../../src/embed/types.js";
import { CatalogIndex } from "../../../src/catalog/match.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { SearchEngine, type SearchRequest } from "../../../src/search/engine.js";
import { MODE_SIGNALS } from "../../../src/search/signals/index.js";
import { SemanticIndex } from "../../../src/search/semantic.js";
import { silentLogger } from "../../../src/util/log.js";

const TOOLS = [
  { name: "read_text_file", description: "Read the complete contents of a text file.", inputSchema: { type: "object" as const } },
  { name: "list_directory", description: "List the files and folders in a directory.", inputSchema: { type: "object" as const } },
  { name: "get_forecast", description: "Daily weather forecast for a city.", inputSchema: { type: "object" as const } },
];

/** The built-in table, whose query embedding fails once `dead` is set (documents were embedded before). */
function dying(): { embedder: Embedder; die: () => void } {
  const table = loadBuiltinEmbedder();
  let dead = false;
  return {
    embedder: {
      id: table.id,
      dimensions: table.dimensions,
      embed: (texts, role) => (dead && role === "query" ? Promise.reject(new Error("the runtime exited")) : table.embed(texts, role)),
    },
    die: () => (dead = true),
  };
}

async function engineWith(embedder: Embedder): Promise<SearchEngine> {
  const registry = new ToolRegistry(new CatalogIndex([]));
  const semantic = new SemanticIndex(() => Promise.resolve(embedder), { dir: undefined }, silentLogger);
  const engine = new SearchEngine(registry, { semantic });
  registry.setNamespace("files", TOOLS, undefined, true);
  await semantic.whenIdle();
  return engine;
}

const ask = (query: string, mode: SearchRequest["mode"]): SearchRequest => ({ query, mode, limit: 5, offset: 0, namespaces: [], tags: [] });

describe("the mode chooses the signals", () => {
  it("leads every mode but browsing with the words or meaning, and pins exact names wherever a query is ranked", () => {
    for (const [mode, signals] of Object.entries(MODE_SIGNALS)) {
      if (mode === "browse") expect(signals).toEqual(["browse"]);
      else expect(signals).toContain("exact");
    }
    expect(MODE_SIGNALS.hybrid[0]).toBe("bm25");
  });

  it("browses every tool by id for an empty query or *, in whatever mode was asked", async () => {
    const engine = await engineWith(loadBuiltinEmbedder());
    for (const query of ["", " * "]) {
      const outcome = await engine.search(ask(query, "hybrid"));
      expect(outcome.mode).toBe("browse");
      expect(outcome.hits.map((h) => h.record.name)).toEqual(["get_forecast", "list_directory", "read_text_file"]);
      expect(outcome.total).toBe(3);
    }
  });

  it("ranks with bm25 when the query cannot be embedded, says why, and ranks as bm25 does", async () => {
    const { embedder, die } = dying();
    const engine = await engineWith(embedder);
    expect((await engine.search(ask("weather in a city", "hybrid"))).mode).toBe("hybrid");
    die();
    for (const mode of ["hybrid", "semantic"] as const) {
      const outcome = await engine.search(ask("weather in a city", mode));
      expect(outcome.mode).toBe("bm25");
      expect(outcome.modeNote).toBe("embedding the query failed (the runtime exited); ranked with bm25");
      const bm25 = await engine.search(ask("weather in a city", "bm25"));
      expect(outcome.hits).toEqual(bm25.hits);
      expect(outcome.total).toBe(bm25.total);
    }
  });
});
