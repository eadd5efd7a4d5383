/**
 * One namespace's prepared search index as bytes: its BM25 segment
 * (postings in typed arrays), the words its stems are shown as, and its
 * exact-name keys. Read back, the typed arrays are views on the file's
 * bytes, so a 10,000-tool namespace loads in milliseconds instead of
 * being analyzed again.
 *
 *   "MTIX" · u32 format · u32 header bytes · header (JSON) · padding to 4 ·
 *   lengths f32[n] · priors f32[n] · term starts u32[terms + 1] · docs u32[p] · tfs f32[p]
 */
import type { Segment } from "./segment.js";

export interface PreparedNamespace {
  /** What the namespace's documents and the analyzer hashed to when this was built. */
  key: string;
  /** The version, analyzer and tuning alone, hashed (index-cache.ts, `indexSalt`). */
  salt: string;
  segment: Segment;
  /** Stem → the word as people write it. */
  surface: [string, string][];
  /** Tool id → its exact-name keys. */
  exact: [string, string[]][];
}

const MAGIC = 0x5849544d; // "MTIX", little-endian
const FORMAT = 3;

interface Header {
  key: string;
  salt: string;
  ids: string[];
  terms: string[];
  totalLength: number;
  postings: number;
  surface: [string, string][];
  /** Each tool's exact-name keys, in the order of `ids`. */
  exact: string[][];
}

export function encodeNamespace(prepared: PreparedNamespace): Buffer {
  const { segment } = prepared;
  const { starts, docs, tfs } = segment;
  const terms = [...segment.terms.keys()];
  const count = docs.length;
  // The exact keys are stored in the segment's order, without their ids again.
  const keys = new Map(prepared.exact);
  const exact = segment.ids.map((id) => keys.get(id) ?? []);
  const header: Header = {
    key: prepared.key,
    salt: prepared.salt,
    ids: segment.ids,
    terms,
    totalLength: segment.totalLength,
    postings: count,
    surface: prepared.surface,
    exact,
  };
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(12);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt32LE(FORMAT, 4);
  head.writeUInt32LE(json.length, 8);
  const pad = Buffer.alloc((4 - ((12 + json.length) % 4)) % 4);
  const bytes = (array: Uint32Array | Float32Array) => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  return Buffer.concat([head, json, pad, bytes(segment.lengths), bytes(segment.priors), bytes(starts), bytes(docs), bytes(tfs)]);
}

/** The prepared namespace in `file`'s bytes, or undefined when they are not one (another format, cut short). */
export function decodeNamespace(file: Buffer): PreparedNamespace | undefined {
  if (file.length < 12 || file.readUInt32LE(0) !== MAGIC || file.readUInt32LE(4) !== FORMAT) return undefined;
  const size = file.readUInt32LE(8);
  if (12 + size > file.length) return undefined;
  let header: Header;
  try {
    header = JSON.parse(file.toString("utf8", 12, 12 + size)) as Header;
  } catch {
    return undefined;
  }
  const n = header.ids.length;
  const t = header.terms.length;
  const p = header.postings;
  let offset = 12 + size + ((4 - ((12 + size) % 4)) % 4);
  if (offset + 4 * (2 * n + t + 1 + 2 * p) !== file.length) return undefined;
  // Typed arrays need 4-byte alignment: a buffer from the shared pool may not have it.
  const buffer = file.byteOffset % 4 ? Buffer.from(file) : file;
  const view = <T>(Kind: new (b: ArrayBufferLike, o: number, l: number) => T, length: number): T => {
    const array = new Kind(buffer.buffer, buffer.byteOffset + offset, length);
    offset += 4 * length;
    return array;
  };
  const lengths = view(Float32Array, n);
  const priors = view(Float32Array, n);
  const starts = view(Uint32Array, t + 1);
  const docs = view(Uint32Array, p);
  const tfs = view(Float32Array, p);
  // Damaged bytes must not reach scoring: every posting within its documents, every list within the postings.
  for (let i = 0; i < t; i++) if (starts[i]! > starts[i + 1]!) return undefined;
  if (starts[0] !== 0 || starts[t] !== p || !allBelow(docs, n)) return undefined;
  // Plain loops: a start from the snapshot at 10,000 tools reads 40,000 terms and 300,000 postings here.
  const terms = new Map<string, number>();
  for (let i = 0; i < t; i++) terms.set(header.terms[i]!, i);
  if (terms.size !== t) return undefined;
  if (header.exact.length !== n) return undefined;
  const exact = new Array<[string, string[]]>(n);
  for (let i = 0; i < n; i++) exact[i] = [header.ids[i]!, header.exact[i]!];
  return {
    key: header.key,
    salt: header.salt,
    segment: { ids: header.ids, lengths, priors, totalLength: header.totalLength, terms, starts, docs, tfs },
    surface: header.surface,
    exact,
  };
}

function allBelow(values: Uint32Array, limit: number): boolean {
  for (let i = 0; i < values.length; i++) if (values[i]! >= limit) return false;
  return true;
}
