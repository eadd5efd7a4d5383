/**
 * The embedding cache is bounded: the least recently used records are
 * dropped beyond the cap, the file is compacted once a quarter over (what a
 * lookup used stays, and a restart reads it back), a torn file is repaired
 * at load, and the semantic index still indexes a namespace larger than the
 * whole cache.
 */
import { appendFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddingCache, textHash } from "../../../src/embed/cache.js";
import { openEmbedder } from "../../../src/embed/open.js";
import { restoreVector } from "../../../src/embed/stored.js";
import { SemanticIndex } from "../../../src/search/semantic.js";
import { silentLogger } from "../../../src/util/log.js";
import { tempDir } from "../../helpers/harness.js";
import { toolRecord } from "../../helpers/records.js";
import { writeVectors } from "../../helpers/semantic.js";

const DIMS = 4;
/** A 16-byte hash and four floats. */
const RECORD = 16 + DIMS * 4;
const entry = (name: string) => ({ hash: textHash(name), vector: Float32Array.from([name.length, name.charCodeAt(0), 1, 2]) });
const has = (cache: EmbeddingCache, ...names: string[]) => names.map((name) => cache.get(textHash(name)) !== undefined);

describe("one embedding cache per config", () => {
  it("keeps each config's vectors in a file of its own: a start reads its own, never another config's or an eval run's", () => {
    const dir = tempDir();
    const mine = new EmbeddingCache("test", DIMS, dir, 1 << 20, "/home/ada/metatools.json");
    mine.add(["a", "b"].map(entry));
    // Another config (or `eval` over a set) fills the same folder with many more.
    const theirs = new EmbeddingCache("test", DIMS, dir, 1 << 20, "/data/eval/tools.jsonl");
    theirs.add(Array.from({ length: 500 }, (_, i) => entry(`other ${i}`)));
    expect(readdirSync(dir).filter((f) => f.endsWith(".vec"))).toHaveLength(2);
    const restarted = new EmbeddingCache("test", DIMS, dir, 1 << 20, "/home/ada/metatools.json");
    expect(restarted.size).toBe(2);
    expect(has(restarted, "a", "b", "other 1")).toEqual([true, true, false]);
    expect(new EmbeddingCache("test", DIMS, dir, 1 << 20, "/data/eval/tools.jsonl").size).toBe(500);
  });
});

describe("the embedding cache's cap", () => {
  it("drops the least recently used records beyond the cap; a lookup counts as a use and writes nothing", () => {
    const dir = tempDir();
    const cache = new EmbeddingCache("test", DIMS, dir, 4 * RECORD);
    cache.add(["a", "b", "c", "d"].map(entry));
    const file = join(dir, "test.vec");
    const before = statSync(file);
    expect(has(cache, "a")).toEqual([true]);
    expect(statSync(file)).toMatchObject({ ino: before.ino, size: before.size, mtimeMs: before.mtimeMs });
    cache.add([entry("e")]);
    expect(cache.size).toBe(4);
    expect(has(cache, "b")).toEqual([false]);
    expect(has(cache, "a", "c", "d", "e")).toEqual([true, true, true, true]);
  });

  it("compacts the file once it is a quarter over the cap, and a restart keeps what was used last", () => {
    const dir = tempDir();
    const file = join(dir, "test.vec");
    const cache = new EmbeddingCache("test", DIMS, dir, 8 * RECORD);
    const sizes: number[] = [];
    for (let i = 0; i < 100; i++) {
      // "keep" is used all along: it is never the least recently used one.
      if (i === 0) cache.add([entry("keep")]);
      expect(has(cache, "keep")).toEqual([true]);
      cache.add([entry(`t${i}`)]);
      sizes.push(statSync(file).size);
    }
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8 * RECORD * 1.25);
    expect(sizes.some((size, i) => i > 0 && size < sizes[i - 1]!)).toBe(true);
    const again = new EmbeddingCache("test", DIMS, dir, 8 * RECORD);
    expect(again.size).toBeLessThanOrEqual(8);
    expect(has(again, "keep", "t99", "t98", "t0")).toEqual([true, true, true, false]);
  });

  it("repairs a file with a torn last record, so later records stay in step", () => {
    const dir = tempDir();
    const file = join(dir, "test.vec");
    new EmbeddingCache("test", DIMS, dir, 64 * RECORD).add([entry("a"), entry("b")]);
    // A crash in the middle of an append.
    appendFileSync(file, Buffer.alloc(7, 1));
    new EmbeddingCache("test", DIMS, dir, 64 * RECORD).add([entry("c")]);
    expect(statSync(file).size % RECORD).toBe(0);
    const reopened = new EmbeddingCache("test", DIMS, dir, 64 * RECORD);
    expect(has(reopened, "a", "b", "c")).toEqual([true, true, true]);
    // Kept in memory as int16 codes and a scale: the floats back within half a step of the largest value's 1/32,767.
    restoreVector(reopened.get(textHash("c"))!).forEach((x, i) => expect(x).toBeCloseTo(entry("c").vector[i]!, 2));
  });

  it("lets the semantic index hold a namespace larger than the whole cache", async () => {
    const dir = tempDir();
    const vectors = writeVectors(dir);
    const words = ["delete", "file", "weather", "send", "create", "list"];
    const records = Array.from({ length: 300 }, (_, i) => toolRecord("big", `tool_${i}`, { description: `${words[i % words.length]} item ${i}` }));
    // 16-dimensional vectors: 80 bytes a record, so room for 50.
    const semantic = new SemanticIndex(() => openEmbedder({ type: "static", vectors }), { dir: join(dir, "cache"), maxBytes: 50 * 80 }, silentLogger);
    await semantic.replaceNamespace("big", records);
    await semantic.whenIdle();
    expect(semantic.error).toBeUndefined();
    expect(semantic.size).toBe(300);
    const hits = await semantic.search("forecast", { top: 5 });
    expect(hits).toHaveLength(5);
    expect(hits.every((hit) => /^big:tool_\d+$/.test(hit.id))).toBe(true);
    const file = join(dir, "cache", readdirSync(join(dir, "cache"))[0]!);
    expect(statSync(file).size).toBeLessThanOrEqual(50 * 80 * 1.25);
    await semantic.close();
  });
});
