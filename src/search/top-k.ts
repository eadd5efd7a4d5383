/**
 * The k best of a stream of scored ids, best first, ties by id: a bounded
 * binary heap with the worst kept at its root, so each candidate costs a
 * comparison and, when it enters, log k steps; only those that enter are
 * objects. Rankers feed it tens of thousands of matches for a page of ten.
 */
import type { Ranked } from "./types.js";

/** Whether `a` ranks before `b`: a higher score, or the same and a smaller id. */
const before = (aScore: number, aId: string, b: Ranked): boolean => aScore > b.score || (aScore === b.score && aId < b.id);

/** An entry kept: its id and score, and where it came from (a row, for the ranker's own use). */
export type Kept = Ranked & { row: number };

export class TopK {
  private readonly heap: Kept[] = [];

  constructor(private readonly k: number) {}

  /** Whether a candidate with this score could enter now (a cheap test before making its id). */
  admits(score: number): boolean {
    return this.k > 0 && (this.heap.length < this.k || score >= this.heap[0]!.score);
  }

  push(id: string, score: number, row = -1): void {
    const heap = this.heap;
    if (this.k <= 0) return;
    if (heap.length < this.k) {
      heap.push({ id, score, row });
      this.up(heap.length - 1);
    } else if (before(score, id, heap[0]!)) {
      heap[0] = { id, score, row };
      this.down(0);
    }
  }

  /** The kept ones, best first. */
  sorted(): Kept[] {
    return [...this.heap].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Moves an entry toward the root while it ranks after its parent (the root is the worst kept). */
  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[parent]!.score, heap[parent]!.id, heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < heap.length && before(heap[worst]!.score, heap[worst]!.id, heap[left]!)) worst = left;
      if (right < heap.length && before(heap[worst]!.score, heap[worst]!.id, heap[right]!)) worst = right;
      if (worst === i) return;
      [heap[worst], heap[i]] = [heap[i]!, heap[worst]!];
      i = worst;
    }
  }
}
