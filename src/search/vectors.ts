/**
 * Exact vector search, scanned in int8: each unit vector is also kept as
 * int8 codes with one scale (a quarter of its bytes), every row is scored
 * by the WebAssembly SIMD kernel (kernel/dot-i8.ts), and the best
 * candidates, a margin more than asked for, are scored again exactly from
 * the vectors themselves (the embedding cache's, shared, not copied). So
 * the ranking is the float ranking (rounding to int8 moves a cosine by about
 * 0.002, far less than the margin spans) at the speed of the int8 scan.
 * Kept per namespace, as backends change one at a time, and packed into one
 * matrix when searched after a change.
 */
import { Int8Matrix, MAX_DIMS, padded, QUERY_MAX, quantize } from "./kernel/dot-i8.js";
import { TopK, type Kept } from "./top-k.js";
import type { RankOptions } from "./types.js";

export interface VectorHit {
  id: string;
  score: number;
}

interface Packed {
  ids: string[];
  namespaces: string[];
  vectors: Float32Array[];
  scales: Float32Array;
  matrix: Int8Matrix;
  /** Each row's best approximate score in a scan (reused: searches run one at a time). */
  scores: Float32Array;
}

/** Candidates scored again exactly: the int8 scan's best `top` × this, and at least RESCORE_MIN more. */
const RESCORE_FACTOR = 2;
const RESCORE_MIN = 32;

export class VectorIndex {
  private readonly byNamespace = new Map<string, { ids: string[]; vectors: readonly Float32Array[]; codes: Int8Array; scales: Float32Array }>();
  private packed: Packed | undefined;
  /** Values per row: the dimensions padded for the kernel. */
  private readonly stride: number;

  constructor(
    readonly dimensions: number,
    /** False: the plain JavaScript scan (the kernel's reference, and the path where WebAssembly SIMD is missing). */
    private readonly accelerated = true,
  ) {
    this.stride = padded(dimensions);
    if (this.stride > MAX_DIMS) throw new RangeError(`vectors of ${dimensions} dimensions: at most ${MAX_DIMS} are supported`);
  }

  get size(): number {
    let n = 0;
    for (const entry of this.byNamespace.values()) n += entry.ids.length;
    return n;
  }

  replaceNamespace(namespace: string, ids: string[], vectors: readonly Float32Array[]): void {
    if (ids.length) {
      const codes = new Int8Array(ids.length * this.stride);
      const scales = new Float32Array(ids.length);
      vectors.forEach((v, i) => (scales[i] = quantize(v, codes.subarray(i * this.stride, (i + 1) * this.stride))));
      this.byNamespace.set(namespace, { ids, vectors, codes, scales });
    } else this.byNamespace.delete(namespace);
    this.packed = undefined;
  }

  /**
   * The `options.top` nearest tools that pass the filters, best first (ties
   * by id). With several query vectors (a long request's parts), a tool
   * scores its best match among them.
   */
  search(queries: readonly Float32Array[], options: RankOptions): VectorHit[] {
    const top = Math.max(0, options.top);
    const candidates = this.scan(queries, { ...options, top: top * RESCORE_FACTOR + RESCORE_MIN });
    const { vectors } = this.pack();
    const exact = candidates.map(({ id, row }) => ({ id, score: bestDot(vectors[row]!, queries) }));
    return exact.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).slice(0, top);
  }

  /** The int8 scan: the `options.top` best rows that pass the filters, by their approximate scores. */
  private scan(queries: readonly Float32Array[], options: RankOptions): Kept[] {
    const { ids, namespaces, scales, matrix, scores } = this.pack();
    const rows = ids.length;
    const query = new Int16Array(this.stride);
    // One query vector (most requests): its sums are the scores; several: each row keeps its best.
    if (queries.length === 1) {
      const scale = quantize(queries[0]!, query, QUERY_MAX);
      const dots = matrix.dots(query);
      for (let r = 0; r < rows; r++) scores[r] = dots[r]! * scales[r]! * scale;
    } else {
      scores.fill(Number.NEGATIVE_INFINITY);
      for (const vector of queries) {
        const scale = quantize(vector, query, QUERY_MAX);
        const dots = matrix.dots(query);
        for (let r = 0; r < rows; r++) {
          const score = dots[r]! * scales[r]! * scale;
          if (score > scores[r]!) scores[r] = score;
        }
      }
    }
    const best = new TopK(options.top);
    for (let row = 0; row < rows; row++) {
      const score = scores[row]!;
      if (!best.admits(score)) continue;
      if (options.namespaces && !options.namespaces.has(namespaces[row]!)) continue;
      const id = ids[row]!;
      if (options.accept && !options.accept(id)) continue;
      best.push(id, score, row);
    }
    return best.sorted();
  }

  private pack(): Packed {
    if (this.packed) return this.packed;
    const rows = this.size;
    const ids: string[] = [];
    const namespaces: string[] = [];
    const vectors: Float32Array[] = [];
    const all = new Int8Array(rows * this.stride);
    const scales = new Float32Array(rows);
    for (const [namespace, entry] of this.byNamespace) {
      all.set(entry.codes, ids.length * this.stride);
      scales.set(entry.scales, ids.length);
      entry.ids.forEach((id, i) => {
        ids.push(id);
        namespaces.push(namespace);
        vectors.push(entry.vectors[i]!);
      });
    }
    const matrix = new Int8Matrix(all, rows, this.stride, this.accelerated);
    this.packed = { ids, namespaces, vectors, scales, matrix, scores: new Float32Array(rows) };
    return this.packed;
  }
}

/** A row's exact score: its best dot product among the queries. */
function bestDot(vector: Float32Array, queries: readonly Float32Array[]): number {
  let best = Number.NEGATIVE_INFINITY;
  for (const query of queries) {
    let dot = 0;
    for (let i = 0; i < vector.length; i++) dot += vector[i]! * query[i]!;
    if (dot > best) best = dot;
  }
  return best;
}
