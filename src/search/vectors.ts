/**
 * Vector search, scanned in int8: the vectors (the embedding cache's, as
 * it keeps them: int16 codes and a scale, ../embed/stored.ts, shared, not
 * copied) are packed into one int8 matrix (a row's codes rounded to 127
 * steps, a quarter of float32's bytes), every row is scored by the
 * WebAssembly SIMD kernel (kernel/dot-i8.ts), and the best candidates, a
 * margin more than asked for, are scored again from the int16 codes. So the
 * ranking is the float ranking to about five decimals (rounding to int8
 * moves a cosine by about 0.002, far less than the margin spans) at the
 * speed of the int8 scan. Kept per namespace, as backends change one at a
 * time, and packed when searched after a change (a large index: again in
 * slices once the change is embedded, `repackInSlices`).
 */
import { STORED_MAX, type StoredVector } from "../embed/stored.js";
import { Int8Matrix } from "./kernel/dot-i8.js";
import { MAX_DIMS, padded } from "./kernel/module.js";
import { bestAmong, floorOfSample, inRankOrder, selectBest } from "./select.js";
import { TopK } from "./top-k.js";
import type { RankOptions } from "./types.js";
import { Slices, Superseded } from "../util/turn.js";

export interface VectorHit {
  id: string;
  score: number;
}

interface Packed {
  ids: string[];
  namespaces: string[];
  /** Each row's int16 codes: its stored vector's own array. */
  codes: Int16Array[];
  scales: Float64Array;
  matrix: Int8Matrix;
}

/** Indexes of this many vectors or more are packed again in slices after a change (`repackInSlices`). */
export const REPACK_IN_SLICES_FROM = 20_000;

/** Candidates scored again from their int16 codes: the int8 scan's best `top` × this, and RESCORE_MIN more (twice `top` ranked the five public sets the same to the fourth decimal). */
const RESCORE_FACTOR = 1;
const RESCORE_MIN = 32;

export class VectorIndex {
  private readonly byNamespace = new Map<string, { ids: string[]; vectors: readonly StoredVector[] }>();
  private packed: Packed | undefined;
  /** Whether the vectors changed since `packed` was made; `changes` counts the changes. */
  private dirty = false;
  private changes = 0;
  /** Repacks in slices under way: searches meanwhile scan `packed` as it was. */
  private repacking = 0;
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

  replaceNamespace(namespace: string, ids: string[], vectors: readonly StoredVector[]): void {
    if (ids.length) this.byNamespace.set(namespace, { ids, vectors });
    else this.byNamespace.delete(namespace);
    this.dirty = true;
    this.changes++;
  }

  /**
   * The `options.top` nearest tools that pass the filters, best first (ties
   * by id). With several query vectors (a long request's parts), a tool
   * scores its best match among them.
   */
  search(queries: readonly Float32Array[], options: RankOptions): VectorHit[] {
    const top = Math.max(0, options.top);
    if (!queries.length || !top) return [];
    const candidates = this.scan(queries, { ...options, top: top * RESCORE_FACTOR + RESCORE_MIN });
    const { ids, codes, scales, matrix } = this.pack();
    // Each candidate's best exact score over the queries (its scale is positive: the best dot product's), by its place among the candidates.
    const dots = matrix.rescore(
      queries,
      candidates.map((row) => codes[row]!),
    );
    const score = (i: number) => dots[i]! * scales[candidates[i]!]!;
    const order = inRankOrder(
      candidates.map((_, i) => i),
      score,
      { id: (i) => ids[candidates[i]!]! },
    );
    return order.slice(0, top).map((i) => ({ id: ids[candidates[i]!]!, score: score(i) }));
  }

  /** The int8 scan: the rows of the `options.top` best tools that pass the filters by their approximate scores (ties by id), in no particular order. */
  private scan(queries: readonly Float32Array[], options: RankOptions): number[] {
    const { ids, namespaces, matrix } = this.pack();
    const rows = ids.length;
    const scores = matrix.scores(queries);
    const ties = { id: (row: number) => ids[row]! };
    // No filter (most searches): the best rows under a floor guessed from the scores sampled as they were made (top-k.ts).
    if (!options.namespaces && !options.accept) {
      const { sample } = matrix;
      const floor = floorOfSample(sample, sample.length, 1, options.top, rows);
      if (floor > Number.NEGATIVE_INFINITY) {
        const above = matrix.above(floor);
        if (above.length >= options.top) return bestAmong(above, scores, options.top, ties);
      }
      return selectBest(scores, rows, options.top, ties, floor);
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
    return best.sorted().map(({ row }) => row);
  }

  /** The packed rows to search: as they are now, or, while a repack in slices is under way, as they were. */
  private pack(): Packed {
    if (this.packed && (!this.dirty || this.repacking)) return this.packed;
    const next = this.startPack();
    for (let row = 0; row < next.packed.ids.length; row++) next.write(row);
    return this.install(next.packed);
  }

  /**
   * Packs the rows again in slices that let the event loop turn
   * (../util/turn.ts), searches meanwhile scanning the rows as they were:
   * at 100,000 vectors packing takes about a third of a second. Ends
   * without installing when the vectors change again meanwhile (the
   * change's own repack follows). The semantic index calls it once a
   * large index's namespace is embedded.
   */
  async repackInSlices(): Promise<void> {
    const changes = this.changes;
    const slices = new Slices(() => this.changes === changes);
    this.repacking++;
    try {
      await slices.pause();
      const next = this.startPack();
      for (let row = 0; row < next.packed.ids.length; row++) {
        next.write(row);
        if (slices.due()) await slices.pause();
      }
      if (this.changes === changes) this.install(next.packed);
    } catch (error) {
      if (!(error instanceof Superseded)) throw error;
    } finally {
      this.repacking--;
    }
  }

  /** Whether this index is large enough that the semantic index repacks it in slices after a change. */
  get repacksInSlices(): boolean {
    return this.size >= REPACK_IN_SLICES_FROM;
  }

  private install(packed: Packed): Packed {
    if (this.packed !== packed) this.packed?.matrix.release();
    this.packed = packed;
    this.dirty = false;
    return packed;
  }

  /** A packing of the rows as they are now, its matrix not yet written: `write` each row (then install it). */
  private startPack(): { packed: Packed; write: (row: number) => void } {
    const rows = this.size;
    const ids: string[] = [];
    const namespaces: string[] = [];
    const vectors: StoredVector[] = [];
    for (const [namespace, entry] of this.byNamespace) {
      entry.ids.forEach((id, i) => {
        ids.push(id);
        namespaces.push(namespace);
        vectors.push(entry.vectors[i]!);
      });
    }
    // The rows' int16 codes (the stored vectors' own arrays, not copies) and scales, a lookup each when rescoring.
    const codes = vectors.map((v) => v.codes);
    const scales = Float64Array.from(vectors, (v) => v.scale);
    // int16 codes to int8: the same vector in 127 steps (its largest code is STORED_MAX), written into the matrix's memory
    // (its views stay valid: that memory never grows again).
    const step = 127 / STORED_MAX;
    let int8: Int8Array = new Int8Array(0);
    let int8Scales: Float32Array = new Float32Array(0);
    const matrix = new Int8Matrix(
      rows,
      this.stride,
      (all, allScales) => {
        [int8, int8Scales] = [all, allScales];
      },
      this.accelerated,
    );
    const write = (row: number) => {
      const { codes: rowCodes, scale } = vectors[row]!;
      for (let k = 0, at = row * this.stride; k < rowCodes.length; k++) int8[at + k] = Math.round(rowCodes[k]! * step);
      int8Scales[row] = scale / step;
    };
    return { packed: { ids, namespaces, codes, scales, matrix }, write };
  }
}
