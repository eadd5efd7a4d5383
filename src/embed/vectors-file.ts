/**
 * The compact file static word vectors are kept in, read in one go at
 * start: words in frequency order (most frequent first; the rank stands in
 * for the word's frequency), and one int8 vector per word with its scale.
 * 100,000 words of 100 dimensions take 10 MB, against 300 MB of JSON for
 * the vectors as published.
 *
 *   "MTVEC01\n" | u32 header bytes | header JSON | u32 words bytes | words, "\n"-joined
 *   | f32 scale × count | i8 vector × count × dimensions
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { MetatoolsError } from "../util/errors.js";

const MAGIC = "MTVEC01\n";
/** Lookups answered by scanning the words before a map of them is built. */
const LOOKUPS_BEFORE_INDEX = 32;

export interface VectorsHeader {
  dimensions: number;
  count: number;
  /** Where the vectors came from, for people (and its license). */
  source: string;
  /**
   * How words are weighted when pooled: "sif" (the default) by their
   * frequency rank, for published word vectors; "none" for a trained table
   * whose vectors already carry each word's weight in their length.
   */
  weighting?: "sif" | "none";
  /** The table's trust against BM25 in fusion, as measured for it (Embedder.fusionWeight). */
  fusionWeight?: number;
}

export class WordVectors {
  /** Word → rank, built at the first lookup past a few: a query of five words (the CLI's search) never pays for 100,000 entries. */
  private index: Map<string, number> | undefined;
  private lookups = 0;

  constructor(
    readonly header: VectorsHeader,
    /** SHA-256 of the whole file: cached embeddings are keyed by it, so a changed table never reuses them. */
    readonly digest: string,
    /** The words, most frequent first, each followed by "\n" (the file's blob, with one more at its end). */
    private readonly blob: string,
    private readonly scales: Float32Array,
    private readonly matrix: Int8Array,
  ) {}

  get dimensions(): number {
    return this.header.dimensions;
  }

  /** The word's frequency rank (0 = most frequent), or undefined when the word is unknown. */
  rank(word: string): number | undefined {
    if (this.index) return this.index.get(word);
    if (++this.lookups > LOOKUPS_BEFORE_INDEX || word.includes("\n")) {
      const index = new Map<string, number>();
      this.blob.slice(0, -1).split("\n").forEach((w, i) => index.has(w) || index.set(w, i));
      this.index = index;
      return index.get(word);
    }
    // A few lookups scan the blob: the rank is the count of words before the first match.
    let at = 0;
    if (!this.blob.startsWith(`${word}\n`)) {
      const found = this.blob.indexOf(`\n${word}\n`);
      if (found < 0) return undefined;
      at = found + 1;
    }
    let rank = 0;
    for (let i = this.blob.indexOf("\n"); i !== -1 && i < at; i = this.blob.indexOf("\n", i + 1)) rank++;
    return rank;
  }

  /** Adds `weight` × the word's vector (by rank) into `into`. */
  addTo(into: Float32Array, rank: number, weight: number): void {
    const d = this.header.dimensions;
    const scale = this.scales[rank]! * weight;
    const base = rank * d;
    for (let i = 0; i < d; i++) into[i] = into[i]! + this.matrix[base + i]! * scale;
  }

  static read(file: string): WordVectors {
    let buf: Buffer;
    try {
      buf = readFileSync(file);
    } catch (error) {
      throw new MetatoolsError("embedder_unavailable", `cannot read word vectors ${file}: ${(error as Error).message}`);
    }
    const bad = (why: string) => new MetatoolsError("embedder_unavailable", `${file} is not a metatools word-vectors file (${why}); build one with \`metatools vectors import\``);
    if (buf.length < 16 || buf.toString("latin1", 0, MAGIC.length) !== MAGIC) throw bad("wrong magic");
    let at = MAGIC.length;
    const take = (n: number) => {
      if (at + n > buf.length) throw bad("truncated");
      const part = buf.subarray(at, at + n);
      at += n;
      return part;
    };
    const headerBytes = take(4).readUInt32LE(0);
    const parsed = JSON.parse(take(headerBytes).toString("utf8")) as VectorsHeader;
    if (!Number.isInteger(parsed.dimensions) || !Number.isInteger(parsed.count)) throw bad("bad header");
    const wordBytes = take(4).readUInt32LE(0);
    const blob = `${take(wordBytes).toString("utf8")}\n`;
    let count = 0;
    for (let i = blob.indexOf("\n"); i !== -1; i = blob.indexOf("\n", i + 1)) count++;
    if (count !== parsed.count) throw bad(`${count} words for a count of ${parsed.count}`);
    // Scales are copied when their offset is not 4-byte aligned (a Float32Array needs it); the int8 matrix, most of the file, is a view.
    const scaleBytes = take(parsed.count * 4);
    const scales = scaleBytes.byteOffset % 4 ? new Float32Array(new Uint8Array(scaleBytes).buffer) : new Float32Array(scaleBytes.buffer, scaleBytes.byteOffset, parsed.count);
    const matrixBytes = take(parsed.count * parsed.dimensions);
    const matrix = new Int8Array(matrixBytes.buffer, matrixBytes.byteOffset, matrixBytes.length);
    return new WordVectors(parsed, createHash("sha256").update(buf).digest("hex"), blob, scales, matrix);
  }

  /** Writes `vectors` (one Float32Array per word, most frequent word first) quantized to int8. */
  static write(file: string, source: string, words: readonly string[], vectors: readonly ArrayLike<number>[]): VectorsHeader {
    const dimensions = vectors[0]?.length ?? 0;
    const header: VectorsHeader = { dimensions, count: words.length, source };
    const scales = new Float32Array(words.length);
    const matrix = new Int8Array(words.length * dimensions);
    vectors.forEach((v, i) => {
      let max = 0;
      for (let d = 0; d < dimensions; d++) max = Math.max(max, Math.abs(v[d]!));
      const scale = max / 127 || 1;
      scales[i] = scale;
      for (let d = 0; d < dimensions; d++) matrix[i * dimensions + d] = Math.round(v[d]! / scale);
    });
    const headerJson = Buffer.from(JSON.stringify(header), "utf8");
    const wordsBlob = Buffer.from(words.join("\n"), "utf8");
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n, 0);
      return b;
    };
    writeFileSync(file, Buffer.concat([Buffer.from(MAGIC, "latin1"), u32(headerJson.length), headerJson, u32(wordsBlob.length), wordsBlob, Buffer.from(scales.buffer), Buffer.from(matrix.buffer)]));
    return header;
  }
}
