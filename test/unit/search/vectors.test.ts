/**
 * The vector leg (src/search/vectors.ts, src/search/kernel/): the
 * WebAssembly SIMD kernel gives exactly the JavaScript reference's sums, and
 * the index, scanning in int8 and scoring its best candidates again from the
 * vectors, ranks exactly as a float scan does: same ids, same order, same
 * scores, through filters and several query vectors.
 */
import { describe, expect, it } from "vitest";
import { Int8Matrix, LANES, MAX_DIMS, padded, QUERY_MAX, quantize } from "../../../src/search/kernel/dot-i8.js";
import { VectorIndex } from "../../../src/search/vectors.js";

/** A seeded generator (mulberry32), so a failure reproduces. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitVectors(n: number, dims: number, next: () => number): Float32Array[] {
  return Array.from({ length: n }, () => {
    const v = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

/** The float scan the index must equal: every vector's best dot over the queries, best first, ties by id. */
function floatRanking(ids: string[], vectors: Float32Array[], queries: Float32Array[], top: number, keep = (_id: string) => true) {
  return ids
    .map((id, i) => ({ id, score: Math.max(...queries.map((q) => q.reduce((s, x, k) => s + x * vectors[i]![k]!, 0))) }))
    .filter((h) => keep(h.id))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, top);
}

describe("the int8 kernel", () => {
  it.each([16, 256, 512])("sums exactly as the JavaScript reference, %i dimensions, extreme values included", (dims) => {
    const next = random(dims);
    const rows = 257;
    const matrix = Int8Array.from({ length: rows * dims }, (_, i) => (i % 97 === 0 ? -127 : i % 89 === 0 ? 127 : Math.round(next() * 254 - 127)));
    const query = Int16Array.from({ length: dims }, (_, i) => (i % 7 === 0 ? QUERY_MAX : i % 11 === 0 ? -QUERY_MAX : Math.round(next() * 4094 - 2047)));
    const wasm = new Int8Matrix(matrix, rows, dims);
    const plain = new Int8Matrix(matrix, rows, dims, false);
    expect(wasm.accelerated).toBe(true);
    expect(plain.accelerated).toBe(false);
    const [a, b] = [Int32Array.from(wasm.dots(query)), Int32Array.from(plain.dots(query))];
    expect([...a]).toEqual([...b]);
    // And the reference is the arithmetic it claims to be.
    let first = 0;
    for (let k = 0; k < dims; k++) first += matrix[k]! * query[k]!;
    expect(b[0]).toBe(first);
  });

  it("quantizes within half a step, and a zero vector to zero", () => {
    const v = Float32Array.from([0.5, -0.25, 0.1, 0]);
    const codes = new Int8Array(4);
    const scale = quantize(v, codes);
    expect(codes[0]).toBe(127);
    v.forEach((x, i) => expect(Math.abs(codes[i]! * scale - x)).toBeLessThanOrEqual(scale / 2 + 1e-9));
    expect(quantize(new Float32Array(4), codes)).toBe(0);
    expect(padded(100)).toBe(112);
    expect(padded(256)).toBe(256);
    expect(LANES).toBe(16);
  });
});

describe("the vector index", () => {
  it.each([
    ["the WebAssembly scan", true],
    ["the JavaScript scan", false],
  ])("ranks as a float scan does, with %s: filters, several queries, dimensions not a multiple of 16", (_label, accelerated) => {
    const next = random(7);
    const dims = 100;
    const index = new VectorIndex(dims, accelerated);
    const a = unitVectors(600, dims, next);
    const b = unitVectors(400, dims, next);
    const idsA = a.map((_, i) => `a:t${i}`);
    const idsB = b.map((_, i) => `b:t${i}`);
    index.replaceNamespace("a", idsA, a);
    index.replaceNamespace("b", idsB, b);
    const ids = [...idsA, ...idsB];
    const vectors = [...a, ...b];
    const queries = unitVectors(2, dims, next);
    for (const top of [1, 10, 100]) {
      expect(index.search([queries[0]!], { top })).toEqual(
        floatRanking(ids, vectors, [queries[0]!], top).map((h) => ({ id: h.id, score: expect.closeTo(h.score, 6) })),
      );
      expect(index.search(queries, { top }).map((h) => h.id)).toEqual(floatRanking(ids, vectors, queries, top).map((h) => h.id));
    }
    const even = (id: string) => Number(id.split("t")[1]) % 2 === 0;
    expect(index.search([queries[1]!], { top: 20, namespaces: new Set(["b"]), accept: even }).map((h) => h.id)).toEqual(
      floatRanking(ids, vectors, [queries[1]!], 20, (id) => id.startsWith("b:") && even(id)).map((h) => h.id),
    );
    // A namespace replaced is searched as it is now.
    index.replaceNamespace("a", [], []);
    expect(index.search([queries[0]!], { top: 5 }).every((h) => h.id.startsWith("b:"))).toBe(true);
    expect(index.size).toBe(400);
  });

  it("refuses vectors too long for the kernel's sums", () => {
    expect(() => new VectorIndex(MAX_DIMS + 1)).toThrow(RangeError);
  });
});
