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
  private readonly index: Map<string, number>;

  constructor(
    readonly header: VectorsHeader,
    /** SHA-256 of the whole file: cached embeddings are keyed by it, so a changed table never reuses them. */
    readonly digest: string,
    readonly words: readonly string[],
    private readonly scales: Float32Array,
    private readonly matrix: Int8Array,
  ) {
    this.index = new Map(words.map((w, i) => [w, i]));
  }

  get dimensions(): number {
    return this.header.dimensions;
  }

  /** The word's frequency rank (0 = most frequent), or undefined when the word is unknown. */
  rank(word: string): number | undefined {
    return this.index.get(word);
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
    const words = take(wordBytes).toString("utf8").split("\n");
    if (words.length !== parsed.count) throw bad(`${words.length} words for a count of ${parsed.count}`);
    // Copies, so the typed arrays are aligned whatever the offsets.
    const scales = new Float32Array(new Uint8Array(take(parsed.count * 4)).buffer);
    const matrix = new Int8Array(new Uint8Array(take(parsed.count * parsed.dimensions)).buffer);
    return new WordVectors(parsed, createHash("sha256").update(buf).digest("hex"), words, scales, matrix);
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
