/**
 * One namespace's documents as the inverted index keeps them (a segment),
 * and how one is built: in two passes over documents analyzed one at a
 * time, never a list per term.
 */
import type { Slices } from "../util/turn.js";
import { TUNING } from "./tuning.js";

/** One tool to index: its id and its analyzed terms, each field's with that field's weight. */
export interface IndexedDoc {
  id: string;
  fields: { terms: readonly string[]; weight: number }[];
  /** Multiplies the tool's final score; below 1 demotes it (a deprecated tool). Default 1. */
  prior?: number;
}

/**
 * One namespace's documents: what segment-file.ts keeps on disk. The
 * postings of all terms are two flat arrays (a typed array per term would
 * cost more in headers than its postings weigh): term `t`'s documents are
 * `docs[starts[t]]` up to `docs[starts[t + 1]]`, ascending, with their
 * weighted frequencies in `tfs` at the same places.
 */
export interface Segment {
  ids: string[];
  lengths: Float32Array;
  priors: Float32Array;
  totalLength: number;
  /** Each term's number, 0 to terms - 1 in the map's order. */
  terms: Map<string, number>;
  starts: Uint32Array;
  docs: Uint32Array;
  tfs: Float32Array;
}

/**
 * Builds a segment in two passes without a list per term: each document's
 * terms (as numbers) and weighted frequencies are appended to one stream,
 * then counted per term and placed, document order kept.
 */
export function buildSegment(count: number, docAt: (d: number) => IndexedDoc): Segment {
  const builder = new SegmentBuilder(count);
  for (let d = 0; d < count; d++) builder.add(docAt(d));
  return builder.finish();
}

/** The same segment, built in slices that let the event loop turn (../util/turn.ts): a large namespace's build does not hold up searches. */
export async function buildSegmentInSlices(count: number, docAt: (d: number) => IndexedDoc, slices: Slices): Promise<Segment> {
  const builder = new SegmentBuilder(count);
  for (let d = 0; d < count; d++) {
    builder.add(docAt(d));
    if (slices.due()) await slices.pause();
  }
  return builder.finish();
}

/** The two passes: `add` each document in order (the first), then `finish` (the second, which places the postings). */
class SegmentBuilder {
  private readonly terms = new Map<string, number>();
  private readonly ids: string[] = [];
  private readonly lengths: Float32Array;
  private readonly priors: Float32Array;
  private totalLength = 0;
  // Per term: its frequency in the document at hand, the last document it was in (+ 1), its count in the field at hand, and its
  // documents so far; `docTerms` and `fieldTerms` list the terms of the document and of the field at hand.
  private tf = new Float64Array(4096);
  private lastDoc = new Uint32Array(4096);
  private inField = new Uint32Array(4096);
  private perTerm = new Uint32Array(4096);
  private readonly docTerms: number[] = [];
  private readonly fieldTerms: number[] = [];
  private readonly stream = new Growing();
  private readonly docStarts: Uint32Array;
  private d = 0;

  constructor(private readonly count: number) {
    this.lengths = new Float32Array(count);
    this.priors = new Float32Array(count);
    this.docStarts = new Uint32Array(count + 1);
  }

  add(doc: IndexedDoc): void {
    const { terms, docTerms, fieldTerms, stream } = this;
    const d = this.d++;
    const cap = TUNING.fieldRepeatCap;
    this.ids.push(doc.id);
    this.priors[d] = doc.prior ?? 1;
    let length = 0;
    for (const field of doc.fields) {
      for (const term of field.terms) {
        let t = terms.get(term);
        if (t === undefined) {
          t = terms.size;
          terms.set(term, t);
          if (t === this.tf.length)
            [this.tf, this.lastDoc, this.inField, this.perTerm] = [grow(this.tf), grow(this.lastDoc), grow(this.inField), grow(this.perTerm)];
        }
        if (this.inField[t]!++ === 0) fieldTerms.push(t);
      }
      const { tf, lastDoc, inField } = this;
      for (const t of fieldTerms) {
        if (lastDoc[t] !== d + 1) {
          lastDoc[t] = d + 1;
          docTerms.push(t);
        }
        tf[t]! += Math.min(inField[t]!, cap) * field.weight;
        inField[t] = 0;
      }
      fieldTerms.length = 0;
      // The whole text counts toward length: a stuffed field is long, and its matches are discounted for it.
      length += field.terms.length * field.weight;
    }
    this.lengths[d] = length;
    this.totalLength += length;
    const { tf, perTerm } = this;
    for (const t of docTerms) {
      stream.push(t, tf[t]!);
      perTerm[t]!++;
      tf[t] = 0;
    }
    docTerms.length = 0;
    this.docStarts[d + 1] = stream.length;
  }

  finish(): Segment {
    const { terms, stream, perTerm, docStarts, count } = this;
    if (this.d !== count) throw new Error(`a segment of ${count} documents was given ${this.d}`);
    const starts = new Uint32Array(terms.size + 1);
    for (let t = 0; t < terms.size; t++) starts[t + 1] = starts[t]! + perTerm[t]!;
    const cursor = starts.slice(0, terms.size);
    const postingDocs = new Uint32Array(stream.length);
    const tfs = new Float32Array(stream.length);
    for (let d = 0; d < count; d++) {
      for (let k = docStarts[d]!; k < docStarts[d + 1]!; k++) {
        const at = cursor[stream.terms[k]!]!++;
        postingDocs[at] = d;
        tfs[at] = stream.tfs[k]!;
      }
    }
    const { ids, lengths, priors, totalLength } = this;
    return { ids, lengths, priors, totalLength, terms, starts, docs: postingDocs, tfs };
  }
}

function grow<T extends Float64Array | Uint32Array>(array: T): T {
  const bigger = new (array.constructor as new (n: number) => T)(array.length * 2);
  bigger.set(array);
  return bigger;
}

/** Term numbers and frequencies appended in documents' order. */
class Growing {
  terms = new Uint32Array(1 << 16);
  tfs = new Float64Array(1 << 16);
  length = 0;

  push(term: number, tf: number): void {
    if (this.length === this.terms.length) [this.terms, this.tfs] = [grow(this.terms), grow(this.tfs)];
    this.terms[this.length] = term;
    this.tfs[this.length++] = tf;
  }
}
