/**
 * The transformers.js embedder on a model folder the test writes (a real
 * ONNX graph and tokenizer; see helpers/onnx-model.ts): loading from a local
 * folder with both weight types, embedding, search through a real MCP
 * client, and the startup error for a missing or corrupt folder.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TransformersEmbedder, type TransformersSpec } from "../../../src/embed/transformers.js";
import { openSession, tempDir } from "../../helpers/harness.js";
import { expectBm25Fallback, writeModel, writeTools } from "../../helpers/semantic.js";

const spec = (model: string, dtype: "q8" | "fp32" = "q8"): TransformersSpec => ({
  type: "transformers",
  model,
  dtype,
  pooling: "mean",
  queryPrefix: "",
  documentPrefix: "",
  allowDownload: false,
});
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe("transformers.js embedder", () => {
  it("loads a local model folder and embeds text by meaning, in q8 and fp32", async () => {
    const model = writeModel(tempDir());
    const q8 = await TransformersEmbedder.load(spec(model));
    const fp32 = await TransformersEmbedder.load(spec(model, "fp32"));
    try {
      expect(q8.dimensions).toBe(16);
      expect(q8.id).not.toBe(fp32.id);
      const [remove, erase, weather] = await q8.embed(["remove a file", "Erase the document.", "weather forecast"], "document");
      expect(Math.hypot(...remove!)).toBeCloseTo(1, 5);
      expect(dot(remove!, erase!)).toBeGreaterThan(0.9);
      expect(dot(remove!, weather!)).toBeLessThan(0.3);
      const [exact] = await fp32.embed(["remove a file"], "query");
      expect(dot(remove!, exact!)).toBeGreaterThan(0.999);
      // No known word: a zero vector, not NaN.
      const [unknown] = await q8.embed(["zzz qqq"], "query");
      expect([...unknown!].every((x) => x === 0)).toBe(true);
    } finally {
      await q8.close();
      await fp32.close();
    }
  });

  it("ranks by meaning through search_tools, and a restart embeds nothing again", async () => {
    const dir = tempDir();
    const model = writeModel(dir);
    const config = {
      mcpServers: { notes: { type: "catalog" as const, tools: writeTools(dir) } },
      metatools: {
        code: { enabled: false },
        search: { embedder: { type: "transformers" as const, model: "concept-model" }, embeddingCache: join(dir, "cache") },
      },
    };
    const first = await openSession(config, { builtinCatalog: false, file: join(dir, "metatools.json") });
    try {
      await first.app.search.semantic!.whenIdle();
      expect(first.app.search.semantic!.embedder!.id).toMatch(/^transformers:concept-model:q8:mean:/);
      const body = await first.call("search_tools", { query: "remove a file", mode: "semantic" });
      expect(body.mode).toBe("semantic");
      expect(body.hits[0].id).toBe("notes:delete_entry");
      expect((await first.call("search_tools", { query: "remove a file" })).hits[0].id).toBe("notes:delete_entry");
      expect(first.app.search.semantic!.embedded).toBe(5);
    } finally {
      await first.close();
    }
    expect(model).toBe(join(dir, "concept-model"));
    const second = await openSession(config, { builtinCatalog: false, file: join(dir, "metatools.json") });
    try {
      await second.app.search.semantic!.whenIdle();
      expect(second.app.search.semantic!.embedded).toBe(0);
    } finally {
      await second.close();
    }
  });

  it("a missing or corrupt model folder is a startup error naming the path, and BM25 keeps working", async () => {
    const dir = tempDir();
    const corrupt = writeModel(join(dir, "corrupt"));
    writeFileSync(join(corrupt, "onnx", "model_quantized.onnx"), "not an onnx graph");
    const noTokenizer = join(dir, "no-tokenizer");
    mkdirSync(join(noTokenizer, "onnx"), { recursive: true });
    copyFileSync(join(corrupt, "config.json"), join(noTokenizer, "config.json"));
    const tools = writeTools(dir);
    const cases = [
      { model: join(dir, "missing"), says: /model folder .*missing not found/ },
      { model: corrupt, says: /cannot load the model in .*corrupt.*model_quantized\.onnx/ },
      { model: noTokenizer, says: /model folder .*no-tokenizer has no tokenizer\.json/ },
    ];
    for (const { model, says } of cases) await expectBm25Fallback(dir, tools, { type: "transformers", model }, says, model);
  });
});
