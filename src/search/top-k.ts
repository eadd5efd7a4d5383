/**
 * The k best of a stream of scored ids, best first, ties by id: a bounded
 * binary heap with the worst kept at its root, so each candidate costs a
 * comparison and, when it enters, log k steps. The heap is three parallel
 * arrays (scores, ids, rows): entering makes no object; only the k kept
 * become objects, at the end. Rankers feed it tens of thousands of matches
 * for a page of ten (or select.ts picks them without a heap).
 */
import type { Ranked } from "./types.js";

/** Ids in their order (UTF-16 code units, as `<` compares strings). */
export const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The rank order: a higher score first, and of the same score the smaller id. */
export const byRank = (a: Ranked, b: Ranked): number => b.score - a.score || compareIds(a.id, b.id);

/** An entry kept: its id and score, and where it came from (a row, for the ranker's own use). */
export type Kept = Ranked & { row: number };

export class TopK {
  private scores = new Float64Array(16);
  private readonly ids: string[] = [];
  private rows = new Int32Array(16);
  private size = 0;

  /** `k` may be larger than any stream (everything kept, sorted): the arrays grow with what enters, never past k. */
  constructor(private readonly k: number) {}

  /** Entries kept so far. */
  get length(): number {
    return this.size;
  }

  /** Whether a candidate with this score could enter now (a cheap test before making its id). */
  admits(score: number): boolean {
    return this.k > 0 && (this.size < this.k || score >= this.scores[0]!);
  }

  push(id: string, score: number, row = -1): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      if (this.size === this.scores.length) this.grow();
      this.place(this.size++, id, score, row);
      this.up(this.size - 1);
    } else if (score > this.scores[0]! || (score === this.scores[0]! && id < this.ids[0]!)) {
      this.place(0, id, score, row);
      this.down(0);
    }
  }

  /** The kept ones, best first. */
  sorted(): Kept[] {
    const kept: Kept[] = [];
    for (let i = 0; i < this.size; i++) kept.push({ id: this.ids[i]!, score: this.scores[i]!, row: this.rows[i]! });
    return kept.sort(byRank);
  }

  private grow(): void {
    const scores = new Float64Array(this.scores.length * 2);
    const rows = new Int32Array(this.rows.length * 2);
    scores.set(this.scores);
    rows.set(this.rows);
    [this.scores, this.rows] = [scores, rows];
  }

  private place(i: number, id: string, score: number, row: number): void {
    this.scores[i] = score;
    this.ids[i] = id;
    this.rows[i] = row;
  }

  /** Whether entry `a` ranks before entry `b`: a higher score, or the same and a smaller id. */
  private before(a: number, b: number): boolean {
    const sa = this.scores[a]!;
    const sb = this.scores[b]!;
    return sa > sb || (sa === sb && this.ids[a]! < this.ids[b]!);
  }

  private swap(a: number, b: number): void {
    const { scores, ids, rows } = this;
    const score = scores[a]!;
    scores[a] = scores[b]!;
    scores[b] = score;
    const id = ids[a]!;
    ids[a] = ids[b]!;
    ids[b] = id;
    const row = rows[a]!;
    rows[a] = rows[b]!;
    rows[b] = row;
  }

  /** Moves an entry toward the root while it ranks after its parent (the root is the worst kept). */
  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(parent, i)) break;
      this.swap(parent, i);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < this.size && this.before(worst, left)) worst = left;
      if (right < this.size && this.before(worst, right)) worst = right;
      if (worst === i) return;
      this.swap(worst, i);
      i = worst;
    }
  }
}
