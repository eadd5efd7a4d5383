/**
 * Int8 dot products over a matrix of rows, in WebAssembly with 128-bit
 * SIMD (dot-i8.wat) where the runtime has it, else in plain JavaScript (the
 * same sums, slower). The matrix lives in the module's memory, copied in
 * once per packing; a scan copies in only the query and reads out one
 * int32 per row.
 */
import { DOT_I8_WASM } from "./dot-i8.wasm.js";

/** Rows are padded to a multiple of this many values (the kernel reads 16 at a time). */
export const LANES = 16;

export const padded = (dims: number): number => Math.ceil(dims / LANES) * LANES;

interface Kernel {
  memory: WebAssembly.Memory;
  dots: (query: number, matrix: number, rows: number, dims: number, out: number) => void;
}

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD is unavailable. */
function kernelModule(): WebAssembly.Module | null {
  if (compiled !== undefined) return compiled;
  const bytes = Buffer.from(DOT_I8_WASM, "base64");
  compiled = typeof WebAssembly === "object" && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  return compiled;
}

const PAGE = 65_536;
const align = (n: number): number => Math.ceil(n / LANES) * LANES;

/** One matrix of int8 rows (each `dims` long, a multiple of LANES), scanned by queries. */
export class Int8Matrix {
  private readonly kernel: Kernel | undefined;
  private readonly data: Int8Array;
  private readonly queryAt: number;
  private readonly outAt: number;
  /** Where each scan's sums are: in the module's memory, or a plain array. */
  private readonly out: Int32Array;
  private readonly query: Int16Array;

  constructor(
    rows: Int8Array,
    readonly rowCount: number,
    readonly dims: number,
    useWasm = true,
  ) {
    const module = useWasm ? kernelModule() : null;
    const matrixBytes = align(rowCount * dims);
    this.queryAt = matrixBytes;
    this.outAt = matrixBytes + align(dims * 2);
    if (module) {
      const instance = new WebAssembly.Instance(module);
      const kernel = instance.exports as unknown as Kernel;
      const needed = this.outAt + rowCount * 4;
      const have = kernel.memory.buffer.byteLength;
      if (needed > have) kernel.memory.grow(Math.ceil((needed - have) / PAGE));
      this.kernel = kernel;
      // The memory never grows again, so these views stay valid.
      this.data = new Int8Array(kernel.memory.buffer, 0, rowCount * dims);
      this.data.set(rows.subarray(0, rowCount * dims));
      this.query = new Int16Array(kernel.memory.buffer, this.queryAt, dims);
      this.out = new Int32Array(kernel.memory.buffer, this.outAt, rowCount);
    } else {
      this.data = rows;
      this.query = new Int16Array(dims);
      this.out = new Int32Array(rowCount);
    }
  }

  /** Whether the scan runs in WebAssembly. */
  get accelerated(): boolean {
    return this.kernel !== undefined;
  }

  /**
   * Each row's dot product with `query` (integers within QUERY_MAX, `dims`
   * long), one per row. The array is the matrix's own: valid until its next
   * scan.
   */
  dots(query: Int16Array): Int32Array {
    const { rowCount: rows, dims, out } = this;
    this.query.set(query);
    if (this.kernel) {
      this.kernel.dots(this.queryAt, 0, rows, dims, this.outAt);
      return out;
    }
    const data = this.data;
    for (let r = 0, base = 0; r < rows; r++, base += dims) {
      let dot = 0;
      for (let k = 0; k < dims; k++) dot += data[base + k]! * query[k]!;
      out[r] = dot;
    }
    return out;
  }
}

/** The largest query value: 12 bits, so a row of 4,096 int8 values times the query stays within an int32. */
export const QUERY_MAX = 2047;

/** The most dimensions a row may have (the kernel's sums must fit an int32 at QUERY_MAX). */
export const MAX_DIMS = 4096;

/**
 * A vector as integers of at most `limit` in magnitude (127 for a row's
 * int8 codes, QUERY_MAX for a query, which keeps 16 times finer steps) and
 * the scale that gives it back: v ≈ codes × scale. Zero for a zero vector.
 */
export function quantize(vector: Float32Array, into: Int8Array | Int16Array, limit = 127): number {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  if (!max) return 0;
  const scale = max / limit;
  for (let i = 0; i < vector.length; i++) into[i] = Math.round(vector[i]! / scale);
  return scale;
}
