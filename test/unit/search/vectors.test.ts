/**
 * The vector leg (src/search/vectors.ts, src/search/kernel/): the
 * WebAssembly SIMD kernel gives exactly the JavaScript reference's sums, and
 * the index, scanning in int8 and scoring its best candidates again from the
 * vectors as stored (int16 codes), ranks as a float scan does: same ids,
 * same order, the same scores to four decimals, through filters and several
 * query vectors.
 */
import { describe, expect, it } from "vitest";
import { Int8Matrix, RESCORE_ROWS, SCAN_QUERIES } from "../../../src/search/kernel/dot-i8.js";
import { LANES, MAX_DIMS, padded, QUERY_MAX, quantize } from "../../../src/search/kernel/module.js";
import { PARALLEL_FROM } from "../../../src/search/kernel/helper.js";
import { VectorIndex } from "../../../src/search/vectors.js";
import { restoreVector, storeVector, STORED_MAX } from "../../../src/embed/stored.js";

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
  /** Close as float32 arithmetic allows: the kernel sums in float32, the reference in float64. */
  const near = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    expect(a.length).toBe(b.length);
    for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThanOrEqual(1e-6 * Math.abs(b[i]!) + 1e-9);
  };

  it.each([
    [64, 1],
    [256, 3],
    [512, SCAN_QUERIES + 1],
    [MAX_DIMS, 2],
  ])("scores as the JavaScript reference, %i dimensions, %i query vectors, extreme values included", (dims, count) => {
    const next = random(dims + count);
    const rows = 257;
    const codes = Int8Array.from({ length: rows * dims }, (_, i) => (i % 97 === 0 ? -127 : i % 89 === 0 ? 127 : Math.round(next() * 254 - 127)));
    // Rows of 127 everywhere and queries at the top of their range: the largest sums the kernel must hold.
    codes.fill(127, 0, dims);
    const scales = Float32Array.from({ length: rows }, () => next() / 100);
    const fill = (into: Int8Array, into2: Float32Array) => (into.set(codes), into2.set(scales));
    const queries = Array.from({ length: count }, (_, j) =>
      j === 0 ? new Float32Array(dims).fill(0.5) : Float32Array.from({ length: dims }, (_, k) => (k % 7 === 0 ? -1 : next() * 2 - 1)),
    );
    const wasm = new Int8Matrix(rows, dims, fill);
    const plain = new Int8Matrix(rows, dims, fill, false);
    expect(wasm.accelerated).toBe(true);
    expect(plain.accelerated).toBe(false);
    const reference = Float32Array.from(plain.scores(queries));
    near(wasm.scores(queries), reference);
    // And the reference is the arithmetic it claims to be: the best over the queries of the int8 row times the quantized query.
    const query = new Int16Array(dims);
    const best = Math.max(
      ...queries.map((q) => {
        const scale = quantize(q, query, QUERY_MAX);
        let dot = 0;
        for (let k = 0; k < dims; k++) dot += codes[dims + k]! * query[k]!;
        return dot * scale;
      }),
    );
    expect(reference[1]).toBeCloseTo(best * scales[1]!, 6);
    expect(reference[0]).toBeCloseTo(127 * 0.5 * dims * scales[0]!, 3);
  });

  it("scans a large matrix on two threads to the same scores, and on one once released", () => {
    const rows = PARALLEL_FROM + 37;
    const dims = 256;
    const next = random(9);
    const codes = Int8Array.from({ length: rows * dims }, () => Math.round(next() * 254 - 127));
    const scales = Float32Array.from({ length: rows }, () => next());
    const fill = (into: Int8Array, into2: Float32Array) => (into.set(codes), into2.set(scales));
    const two = new Int8Matrix(rows, dims, fill);
    const one = new Int8Matrix(rows, dims, fill);
    one.release();
    expect(two.threaded).toBe(true);
    expect(one.threaded).toBe(false);
    // A second threaded matrix scanned in turn with the first: each scan is a job of its own, its chunks taken by both threads.
    const negated = (into: Int8Array, into2: Float32Array) => (into.set(codes.map((c) => -c)), into2.set(scales));
    const other = new Int8Matrix(rows, dims, negated);
    const otherAlone = new Int8Matrix(rows, dims, negated);
    otherAlone.release();
    expect(other.threaded).toBe(true);
    for (let round = 0; round < 12; round++) {
      const queries = unitVectors(1 + (round % 3), dims, next);
      const alone = Float32Array.from(one.scores(queries));
      const sample = Float32Array.from(one.sample);
      expect(two.scores(queries)).toEqual(alone);
      expect(two.sample).toEqual(sample);
      expect(other.scores(queries)).toEqual(Float32Array.from(otherAlone.scores(queries)));
      // The same rows negated: with one query vector, every score negated.
      if (queries.length === 1) expect(other.scores(queries)).toEqual(alone.map((v) => -v));
    }
    other.release();
    expect(other.threaded).toBe(false);
  });

  it.each([
    ["the WebAssembly scan", true],
    ["the JavaScript scan", false],
  ])("keeps every step-th score as a sample and lists the rows above a floor, with %s", (_label, useWasm) => {
    const dims = 64;
    const rows = 5003;
    const next = random(13);
    const matrix = new Int8Matrix(
      rows,
      dims,
      (codes, scales) => {
        codes.forEach((_, i) => (codes[i] = Math.round(next() * 254 - 127)));
        scales.fill(0.01);
      },
      useWasm,
    );
    const out = Float32Array.from(matrix.scores([Float32Array.from({ length: dims }, () => next() * 2 - 1)]));
    expect(matrix.step).toBe(2);
    expect(Array.from(matrix.sample)).toEqual(Array.from({ length: Math.ceil(rows / 2) }, (_, i) => out[i * 2]!));
    // Strictly above: a floor equal to a score leaves that row out; the last rows (past the last whole step of 4) included.
    for (const floor of [Number.NEGATIVE_INFINITY, out[rows - 1]!, out[17]!, 0, Number.POSITIVE_INFINITY]) {
      expect(Array.from(matrix.above(floor))).toEqual([...out.keys()].filter((r) => out[r]! > floor));
    }
  });

  it("scores candidates again from their int16 codes as the reference does, shorter rows padded with zeros", () => {
    const dims = 320;
    const next = random(5);
    const rows = Array.from({ length: RESCORE_ROWS + 7 }, (_, r) =>
      Int16Array.from({ length: r % 5 === 0 ? 300 : dims }, (_, k) => (k % 13 === 0 ? 32_767 : k % 17 === 0 ? -32_767 : Math.round(next() * 65_534 - 32_767))),
    );
    const query = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const wasm = new Int8Matrix(1, dims, () => undefined);
    const plain = new Int8Matrix(1, dims, () => undefined, false);
    const reference = plain.rescore([query], rows);
    // Sums of 320 terms as large as 32,767, in float32: within a millionth of the terms' magnitudes (the sum itself may be small).
    const magnitude = rows.map((codes) => codes.reduce((sum, c, k) => sum + Math.abs(c * query[k]!), 0));
    wasm.rescore([query], rows).forEach((dot, r) => expect(Math.abs(dot - reference[r]!)).toBeLessThanOrEqual(1e-6 * magnitude[r]!));
    let dot = 0;
    for (let k = 0; k < rows[0]!.length; k++) dot += rows[0]![k]! * query[k]!;
    expect(reference[0]).toBeCloseTo(dot, 0);
    // Several queries: each row's largest dot product among them, the rows copied in once for all.
    const other = Float32Array.from({ length: dims }, () => next() * 2 - 1);
    const both = wasm.rescore([query, other], rows);
    const second = wasm.rescore([other], rows);
    const first = wasm.rescore([query], rows);
    both.forEach((d, r) => expect(d).toBe(Math.max(first[r]!, second[r]!)));
    expect(both.some((d, r) => d === second[r] && d !== first[r])).toBe(true);
    expect(Array.from(plain.rescore([query, other], rows))).toEqual(Array.from(reference, (d, r) => Math.max(d, plain.rescore([other], rows)[r]!)));
  });

  it("quantizes within half a step, and a zero vector to zero", () => {
    const v = Float32Array.from([0.5, -0.25, 0.1, 0]);
    const codes = new Int8Array(4);
    const scale = quantize(v, codes);
    expect(codes[0]).toBe(127);
    v.forEach((x, i) => expect(Math.abs(codes[i]! * scale - x)).toBeLessThanOrEqual(scale / 2 + 1e-9));
    expect(quantize(new Float32Array(4), codes)).toBe(0);
    expect(padded(100)).toBe(128);
    expect(padded(256)).toBe(256);
    expect(LANES).toBe(64);
    expect(() => new Int8Matrix(1, 100, () => undefined)).toThrow(RangeError);
  });
});

describe("vectors as stored", () => {
  it("keep a vector within half a step of 1/32,767 of its largest value, and a zero vector as zero", () => {
    const v = unitVectors(1, 256, random(3))[0]!;
    const stored = storeVector(v);
    const max = Math.max(...v.map(Math.abs));
    expect(Math.max(...stored.codes.map(Math.abs))).toBe(STORED_MAX);
    restoreVector(stored).forEach((x, i) => expect(Math.abs(x - v[i]!)).toBeLessThanOrEqual(max / STORED_MAX / 2 + 1e-9));
    expect(storeVector(new Float32Array(8))).toEqual({ codes: new Int16Array(8), scale: 0 });
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
    index.replaceNamespace("a", idsA, a.map(storeVector));
    index.replaceNamespace("b", idsB, b.map(storeVector));
    const ids = [...idsA, ...idsB];
    const vectors = [...a, ...b];
    const queries = unitVectors(2, dims, next);
    for (const top of [1, 10, 100]) {
      expect(index.search([queries[0]!], { top })).toEqual(
        floatRanking(ids, vectors, [queries[0]!], top).map((h) => ({ id: h.id, score: expect.closeTo(h.score, 4) })),
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

  it.each([
    ["the WebAssembly scan", true],
    ["the JavaScript scan", false],
  ])("ranks thousands of tools as a float scan does, many of them the same vector (tied), with %s", (_label, accelerated) => {
    const next = random(21);
    const dims = 48;
    const distinct = unitVectors(700, dims, next);
    const vectors = Array.from({ length: 6000 }, (_, i) => distinct[(i * 7) % distinct.length]!);
    const ids = vectors.map((_, i) => `d:t${((i * 4099) % 6000).toString(36)}`);
    const index = new VectorIndex(dims, accelerated);
    index.replaceNamespace("d", ids, vectors.map(storeVector));
    for (const queries of [unitVectors(1, dims, next), unitVectors(3, dims, next)]) {
      for (const top of [1, 10, 100])
        expect(index.search(queries, { top }).map((h) => h.id)).toEqual(floatRanking(ids, vectors, queries, top).map((h) => h.id));
    }
  });

  it("ranks a query that is the zero vector (no word it knows) as a tie of every tool: the smallest ids", () => {
    const index = new VectorIndex(32);
    const vectors = unitVectors(500, 32, random(9));
    const ids = vectors.map((_, i) => `n:t${String(i).padStart(3, "0")}`);
    index.replaceNamespace("n", ids, vectors.map(storeVector));
    expect(index.search([new Float32Array(32)], { top: 5 })).toEqual(ids.slice(0, 5).map((id) => ({ id, score: 0 })));
  });

  it("packs again in slices after a change, searches meanwhile scanning the rows as they were; a newer change wins", async () => {
    const next = random(31);
    const dims = 40;
    const [a, b, c] = [unitVectors(300, dims, next), unitVectors(300, dims, next), unitVectors(300, dims, next)];
    const [idsA, idsB, idsC] = [a.map((_, i) => `a:t${i}`), b.map((_, i) => `b:t${i}`), c.map((_, i) => `c:t${i}`)];
    const index = new VectorIndex(dims);
    index.replaceNamespace("a", idsA, a.map(storeVector));
    const query = unitVectors(1, dims, next);
    const top = (ids: string[], vectors: Float32Array[]) => floatRanking(ids, vectors, query, 20).map((h) => h.id);
    expect(index.search(query, { top: 20 }).map((h) => h.id)).toEqual(top(idsA, a));
    index.replaceNamespace("b", idsB, b.map(storeVector));
    const repack = index.repackInSlices();
    // Meanwhile: the rows as they were (a alone).
    expect(index.search(query, { top: 20 }).map((h) => h.id)).toEqual(top(idsA, a));
    await repack;
    expect(index.search(query, { top: 20 }).map((h) => h.id)).toEqual(top([...idsA, ...idsB], [...a, ...b]));
    // A change during a repack: that repack stops, and the next search packs the newest rows.
    const stale = index.repackInSlices();
    index.replaceNamespace("a", [], []);
    index.replaceNamespace("c", idsC, c.map(storeVector));
    await stale;
    expect(index.search(query, { top: 20 }).map((h) => h.id)).toEqual(top([...idsB, ...idsC], [...b, ...c]));
  });

  it("refuses vectors too long for the kernel's sums", () => {
    expect(() => new VectorIndex(MAX_DIMS + 1)).toThrow(RangeError);
  });
});
