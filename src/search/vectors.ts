/**
 * Exact vector search: one contiguous Float32Array of unit vectors, scored
 * by dot product (cosine). Brute force is a few milliseconds at 100k tools
 * of 100-384 dimensions, so no approximate index is needed (see the
 * benchmark). Kept per namespace, as backends change one at a time, and
 * packed into one matrix when searched after a change.
 */
import type { RankOptions } from "./types.js";

export interface VectorHit {
  id: string;
  score: number;
}

export class VectorIndex {
  private readonly byNamespace = new Map<string, { ids: string[]; vectors: Float32Array[] }>();
  private packed: { ids: string[]; namespaces: string[]; matrix: Float32Array } | undefined;

  constructor(readonly dimensions: number) {}

  get size(): number {
    let n = 0;
    for (const entry of this.byNamespace.values()) n += entry.ids.length;
    return n;
  }

  replaceNamespace(namespace: string, ids: string[], vectors: Float32Array[]): void {
    if (ids.length) this.byNamespace.set(namespace, { ids, vectors });
    else this.byNamespace.delete(namespace);
    this.packed = undefined;
  }

  /**
   * The `options.top` nearest tools that pass the filters, best first (ties
   * by id). With several query vectors (a long request's parts), a tool
   * scores its best match among them.
   */
  search(queries: readonly Float32Array[], options: RankOptions): VectorHit[] {
    const { ids, namespaces, matrix } = this.pack();
    const d = this.dimensions;
    const top = Math.max(0, options.top);
    // A small sorted buffer of the best so far: top is tens, n is up to 10^5.
    const best: VectorHit[] = [];
    for (let row = 0; row < ids.length; row++) {
      if (options.namespaces && !options.namespaces.has(namespaces[row]!)) continue;
      const base = row * d;
      let score = -Infinity;
      for (const query of queries) {
        let dot = 0;
        for (let i = 0; i < d; i++) dot += matrix[base + i]! * query[i]!;
        if (dot > score) score = dot;
      }
      if (best.length === top && score <= best[top - 1]!.score) continue;
      const id = ids[row]!;
      if (options.accept && !options.accept(id)) continue;
      let at = best.length;
      while (at > 0 && (best[at - 1]!.score < score || (best[at - 1]!.score === score && best[at - 1]!.id > id))) at--;
      best.splice(at, 0, { id, score });
      if (best.length > top) best.pop();
    }
    return best;
  }

  private pack(): NonNullable<VectorIndex["packed"]> {
    if (this.packed) return this.packed;
    const ids: string[] = [];
    const namespaces: string[] = [];
    const matrix = new Float32Array(this.size * this.dimensions);
    for (const [namespace, entry] of this.byNamespace) {
      entry.vectors.forEach((v, i) => {
        matrix.set(v, ids.length * this.dimensions);
        ids.push(entry.ids[i]!);
        namespaces.push(namespace);
      });
    }
    this.packed = { ids, namespaces, matrix };
    return this.packed;
  }
}
