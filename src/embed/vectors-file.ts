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
import { closeSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { writeFileAtomic } from "../util/files.js";
import { MetatoolsError } from "../util/errors.js";

const MAGIC = "MTVEC01\n";
/** Lookups answered by scanning the words before a map of them is built. */
const LOOKUPS_BEFORE_INDEX = 32;
/** Rows read one by one before the whole matrix is. */
const ROWS_BEFORE_MATRIX = 64;
/** The first read of a file: its header, and for a table of 100,000 words its words and scales too. */
const HEAD_BYTES = 2 << 20;

/** Where a table's int8 vectors are: in the file at `offset`, and in `data` once read. */
interface Matrix {
  file: string;
  offset: number;
  rowsRead: number;
  data?: Int8Array;
}

/** `length` bytes of `file` from `position`. */
function readRange(file: string, position: number, length: number): Buffer {
  const fd = openSync(file, "r");
  try {
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buf, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done === length ? buf : buf.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

/**
 * How much of each end of a table its digest file also hashes ("spot"), to
 * tell a table rebuilt to the same size: 64 KiB (the header and the most
 * frequent words, the last rows), written as the digest's fourth field. A
 * digest of three fields is of an earlier release, whose spot was 1 MiB.
 */
const SPOT_BYTES = 1 << 16;
const EARLIER_SPOT_BYTES = 1 << 20;

/** sha256 of the first and the last `spotBytes` of a file (`head` holds at least its start). */
function spotDigest(file: string, size: number, head: Buffer, spotBytes: number): string {
  const first = head.subarray(0, Math.min(size, spotBytes));
  const last = readRange(file, Math.max(0, size - spotBytes), Math.min(size, spotBytes));
  return createHash("sha256").update(first).update(last).digest("hex");
}

/**
 * The digest written beside a table (`FILE.sha256`: "<hex> <bytes> <spot>
 * <spot bytes>"), when it is for this file: the same size, and the same
 * bytes at both ends.
 */
function recordedDigest(file: string, size: number, head: Buffer): string | undefined {
  let fields: string[];
  try {
    fields = readFileSync(`${file}.sha256`, "utf8").trim().split(/\s+/);
  } catch {
    return undefined;
  }
  const [hex, bytes, spot, spotField] = fields;
  const spotBytes = spotField === undefined ? EARLIER_SPOT_BYTES : Number(spotField);
  if (!hex || !/^[0-9a-f]{64}$/.test(hex) || Number(bytes) !== size || !spot || !Number.isInteger(spotBytes) || spotBytes < 4096 || spotBytes > HEAD_BYTES) {
    return undefined;
  }
  return spotDigest(file, size, head, spotBytes) === spot ? hex : undefined;
}

/** Writes the digest file `read` trusts beside a table: whenever a table is written. */
export function writeDigest(file: string): void {
  const whole = readFileSync(file);
  const spot = createHash("sha256")
    .update(whole.subarray(0, SPOT_BYTES))
    .update(whole.subarray(Math.max(0, whole.length - SPOT_BYTES)))
    .digest("hex");
  writeFileAtomic(`${file}.sha256`, `${createHash("sha256").update(whole).digest("hex")} ${whole.length} ${spot} ${SPOT_BYTES}\n`);
}

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
    private readonly matrix: Matrix,
  ) {}

  get dimensions(): number {
    return this.header.dimensions;
  }

  /** The word's frequency rank (0 = most frequent), or undefined when the word is unknown. */
  rank(word: string): number | undefined {
    if (this.index) return this.index.get(word);
    if (++this.lookups > LOOKUPS_BEFORE_INDEX || word.includes("\n")) {
      const index = new Map<string, number>();
      this.blob
        .slice(0, -1)
        .split("\n")
        .forEach((w, i) => index.has(w) || index.set(w, i));
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
    const row = this.row(rank);
    for (let i = 0; i < d; i++) into[i] = into[i]! + row[i]! * scale;
  }

  /**
   * A word's int8 vector. The matrix (most of the file) is read from disk
   * when many rows are wanted (embedding tools); until then each row is
   * read on its own, so a query of a few words costs a few small reads.
   */
  private row(rank: number): Int8Array {
    const d = this.header.dimensions;
    if (!this.matrix.data && ++this.matrix.rowsRead > ROWS_BEFORE_MATRIX) {
      this.matrix.data = new Int8Array(readRange(this.matrix.file, this.matrix.offset, this.header.count * d).buffer);
    }
    if (this.matrix.data) return this.matrix.data.subarray(rank * d, rank * d + d);
    return new Int8Array(readRange(this.matrix.file, this.matrix.offset + rank * d, d).buffer);
  }

  /**
   * Reads a word-vectors file: its header, words and scales at once, the
   * matrix when wanted. Its digest comes from `FILE.sha256` beside it
   * ("<hex> <bytes>", written with the file) when that matches its size;
   * else the whole file is read and hashed.
   */
  static read(file: string): WordVectors {
    const bad = (why: string) =>
      new MetatoolsError("embedder_unavailable", `${file} is not a metatools word-vectors file (${why}); build one with \`metatools vectors import\``);
    let size: number;
    let head: Buffer;
    try {
      size = statSync(file).size;
      head = readRange(file, 0, Math.min(size, HEAD_BYTES));
    } catch (error) {
      throw new MetatoolsError("embedder_unavailable", `cannot read word vectors ${file}: ${(error as Error).message}`);
    }
    if (head.length < 16 || head.toString("latin1", 0, MAGIC.length) !== MAGIC) throw bad("wrong magic");
    let at = MAGIC.length;
    const take = (n: number) => {
      if (at + n > size) throw bad("truncated");
      // Words and scales past the first read come with a second one.
      if (at + n > head.length) head = readRange(file, 0, Math.min(size, at + n + HEAD_BYTES));
      const part = head.subarray(at, at + n);
      at += n;
      return part;
    };
    const headerBytes = take(4).readUInt32LE(0);
    let parsed: VectorsHeader;
    try {
      parsed = JSON.parse(take(headerBytes).toString("utf8")) as VectorsHeader;
    } catch {
      throw bad("bad header");
    }
    if (!Number.isInteger(parsed.dimensions) || !Number.isInteger(parsed.count) || parsed.dimensions < 1 || parsed.count < 0) throw bad("bad header");
    const wordBytes = take(4).readUInt32LE(0);
    const blob = `${take(wordBytes).toString("utf8")}\n`;
    let count = 0;
    for (let i = blob.indexOf("\n"); i !== -1; i = blob.indexOf("\n", i + 1)) count++;
    if (count !== parsed.count) throw bad(`${count} words for a count of ${parsed.count}`);
    const scales = new Float32Array(new Uint8Array(take(parsed.count * 4)).buffer);
    const offset = at;
    if (size !== offset + parsed.count * parsed.dimensions) throw bad(size < offset + parsed.count * parsed.dimensions ? "truncated" : "trailing bytes");
    const recorded = recordedDigest(file, size, head);
    if (recorded) return new WordVectors(parsed, recorded, blob, scales, { file, offset, rowsRead: 0 });
    const whole = readFileSync(file);
    const data = new Int8Array(whole.buffer, whole.byteOffset + offset, parsed.count * parsed.dimensions);
    return new WordVectors(parsed, createHash("sha256").update(whole).digest("hex"), blob, scales, { file, offset, rowsRead: 0, data });
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
    writeFileAtomic(
      file,
      Buffer.concat([
        Buffer.from(MAGIC, "latin1"),
        u32(headerJson.length),
        headerJson,
        u32(wordsBlob.length),
        wordsBlob,
        Buffer.from(scales.buffer),
        Buffer.from(matrix.buffer),
      ]),
    );
    writeDigest(file);
    return header;
  }
}
