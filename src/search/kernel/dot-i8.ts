/**
 * The vector leg's arithmetic, in WebAssembly with 128-bit SIMD
 * (dot-i8.wat) where the runtime has it, else in plain JavaScript (the same
 * sums, slower): a matrix of int8 rows, each with a scale, lives in the
 * module's memory, written once per packing; a scan copies in a request's
 * query vectors (as int16 codes) and reads out one float per row, its best
 * score over them. And float dot products of a query with a few int16 rows
 * (the best candidates' stored codes), copied in per call.
 */
import { sampleStep } from "../select.js";
import { PARALLEL_FROM, scanHelper } from "./helper.js";
import { kernelModule, kernelOver, LANES, QUERY_MAX, quantize, type BestArgs, type Kernel } from "./module.js";

/** Query vectors one scan of the kernel takes (a request has at most seven: query-parts.ts; more are taken this many at a time). */
export const SCAN_QUERIES = 8;
/** Rows one `rescore` call of the kernel takes (more are taken this many at a time). */
export const RESCORE_ROWS = 512;

const align = (n: number): number => Math.ceil(n / LANES) * LANES;

/** Views on the module's memory (or plain arrays without it), and where each starts. */
interface Regions {
  codes: Int8Array;
  scales: Float32Array;
  queries: Int16Array;
  queryScales: Float32Array;
  out: Float32Array;
  sample: Float32Array;
  above: Int32Array;
  rescoreQuery: Float32Array;
  rescoreRows: Int16Array;
  rescoreOut: Float32Array;
}

/** One matrix of int8 rows (each `dims` long, a multiple of LANES) with a scale each, scanned by queries. */
export class Int8Matrix {
  private readonly kernel: Kernel | undefined;
  private readonly at: Record<keyof Regions, number>;
  private readonly regions: Regions;
  /** Every how many rows one score is drawn into the sample (`sample`). */
  readonly step: number;
  /** This matrix's id at the scan helper, when its rows are scanned on two threads. */
  private helperId: number | undefined;

  /**
   * `fill` writes the rows (`rowCount` × `dims` int8 codes) and their
   * scales into the matrix's own memory: they are never held twice.
   */
  constructor(
    readonly rowCount: number,
    readonly dims: number,
    fill: (codes: Int8Array, scales: Float32Array) => void,
    useWasm = true,
  ) {
    if (dims % LANES) throw new RangeError(`rows of ${dims} values: the kernel takes a multiple of ${LANES} (padded)`);
    this.step = sampleStep(rowCount);
    // A large matrix is scanned on two threads (helper.ts): its memory is shared; a smaller one's is not (JavaScript reads it faster).
    const threads = rowCount >= PARALLEL_FROM && scanHelper.usable && kernelModule(true) !== null;
    const module = useWasm ? kernelModule(threads) : null;
    const sizes: [keyof Regions, number, number][] = [
      ["codes", rowCount * dims, 1],
      ["scales", rowCount, 4],
      ["queries", SCAN_QUERIES * dims, 2],
      ["queryScales", SCAN_QUERIES, 4],
      ["out", rowCount, 4],
      ["sample", Math.ceil(rowCount / this.step), 4],
      ["above", rowCount, 4],
      ["rescoreQuery", dims, 4],
      ["rescoreRows", RESCORE_ROWS * dims, 2],
      ["rescoreOut", RESCORE_ROWS, 4],
    ];
    const at = {} as Record<keyof Regions, number>;
    let end = 0;
    for (const [name, length, bytes] of sizes) {
      at[name] = end;
      end += align(length * bytes);
    }
    this.at = at;
    let buffer: ArrayBufferLike;
    if (module) {
      const { kernel, memory } = kernelOver(module, threads, end);
      this.kernel = kernel;
      if (threads) this.helperId = scanHelper.add(this, module, memory);
      buffer = memory.buffer;
    } else buffer = new ArrayBuffer(end);
    const view = <T>(Kind: new (b: ArrayBufferLike, offset: number, length: number) => T, name: keyof Regions, length: number) =>
      new Kind(buffer, at[name], length);
    this.regions = {
      codes: view(Int8Array, "codes", rowCount * dims),
      scales: view(Float32Array, "scales", rowCount),
      queries: view(Int16Array, "queries", SCAN_QUERIES * dims),
      queryScales: view(Float32Array, "queryScales", SCAN_QUERIES),
      out: view(Float32Array, "out", rowCount),
      sample: view(Float32Array, "sample", Math.ceil(rowCount / this.step)),
      above: view(Int32Array, "above", rowCount),
      rescoreQuery: view(Float32Array, "rescoreQuery", dims),
      rescoreRows: view(Int16Array, "rescoreRows", RESCORE_ROWS * dims),
      rescoreOut: view(Float32Array, "rescoreOut", RESCORE_ROWS),
    };
    fill(this.regions.codes, this.regions.scales);
  }

  /** Stops scanning on two threads (the helper forgets this matrix): when a repack replaces it. */
  release(): void {
    if (this.helperId !== undefined) scanHelper.release(this, this.helperId);
    this.helperId = undefined;
  }

  /** Whether the scan runs on two threads (helper.ts). */
  get threaded(): boolean {
    return this.helperId !== undefined && scanHelper.usable;
  }

  /** Whether the scan runs in WebAssembly. */
  get accelerated(): boolean {
    return this.kernel !== undefined;
  }

  /**
   * Each row's best approximate score over the query vectors (each at most
   * `dims` long): its scale times the largest of its dot products with
   * them, the queries rounded to QUERY_MAX steps. The array is the
   * matrix's own: valid until its next scan.
   */
  scores(queries: readonly Float32Array[]): Float32Array {
    const { out } = this.regions;
    if (queries.length <= SCAN_QUERIES) {
      this.scan(queries);
      return out;
    }
    // More than one scan takes: each row keeps its best over the scans.
    const best = new Float32Array(this.rowCount).fill(Number.NEGATIVE_INFINITY);
    for (let start = 0; start < queries.length; start += SCAN_QUERIES) {
      this.scan(queries.slice(start, start + SCAN_QUERIES));
      for (let r = 0; r < this.rowCount; r++) best[r] = Math.max(best[r]!, out[r]!);
    }
    out.set(best);
    const { sample } = this.regions;
    for (let i = 0; i < sample.length; i++) sample[i] = out[i * this.step]!;
    return out;
  }

  /** The scores of rows 0, step, 2·step… of the last scan (a sample to guess a floor from: select.ts), drawn as they were scored. */
  get sample(): Float32Array {
    return this.regions.sample;
  }

  /** The rows whose score in the last scan is above `floor`, in order; the array is the matrix's own, valid until its next call. */
  above(floor: number): Int32Array {
    const { out, above } = this.regions;
    if (this.kernel) return above.subarray(0, this.kernel.above(this.at.out, this.rowCount, floor, this.at.above));
    let count = 0;
    for (let r = 0; r < this.rowCount; r++) if (out[r]! > floor) above[count++] = r;
    return above.subarray(0, count);
  }

  /** Writes each row's best score over these queries (at most SCAN_QUERIES) into `out`. */
  private scan(queries: readonly Float32Array[]): void {
    const { codes, scales, queries: codesOf, queryScales, out } = this.regions;
    const { rowCount: rows, dims } = this;
    if (!queries.length) {
      out.fill(Number.NEGATIVE_INFINITY);
      this.regions.sample.fill(Number.NEGATIVE_INFINITY);
      return;
    }
    codesOf.fill(0, 0, queries.length * dims);
    queries.forEach((q, j) => (queryScales[j] = quantize(q, codesOf.subarray(j * dims, (j + 1) * dims), QUERY_MAX)));
    if (this.kernel) {
      const at = this.at;
      const whole: BestArgs = [at.queries, queries.length, at.codes, rows, dims, at.queryScales, at.scales, at.out, this.step, at.sample];
      // A large matrix: its rows in chunks, taken by this thread and the helper's (helper.ts).
      if (this.helperId !== undefined && scanHelper.usable && scanHelper.scan(this.helperId, whole, this.kernel.best)) return;
      this.kernel.best(...whole);
      return;
    }
    const { sample } = this.regions;
    for (let r = 0, base = 0; r < rows; r++, base += dims) {
      let best = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < queries.length; j++) {
        let dot = 0;
        for (let k = 0, q = j * dims; k < dims; k++) dot += codes[base + k]! * codesOf[q + k]!;
        best = Math.max(best, dot * queryScales[j]!);
      }
      out[r] = best * scales[r]!;
      if (r % this.step === 0) sample[r / this.step] = out[r]!;
    }
  }

  /**
   * Each row's largest dot product with these float queries, the rows int16
   * codes (each at most `dims` long, the rest taken as zeros), in float32
   * arithmetic in WebAssembly or float64 in JavaScript. The rows are copied
   * in once for all the queries.
   */
  rescore(queries: readonly Float32Array[], rows: readonly Int16Array[]): Float32Array {
    const dots = new Float32Array(rows.length).fill(Number.NEGATIVE_INFINITY);
    if (!this.kernel) {
      rows.forEach((codes, r) => {
        for (const query of queries) {
          let dot = 0;
          for (let k = 0; k < codes.length; k++) dot += codes[k]! * query[k]!;
          dots[r] = Math.max(dots[r]!, dot);
        }
      });
      return dots;
    }
    const { rescoreQuery, rescoreRows, rescoreOut } = this.regions;
    const dims = this.dims;
    for (let start = 0; start < rows.length; start += RESCORE_ROWS) {
      const count = Math.min(RESCORE_ROWS, rows.length - start);
      for (let r = 0; r < count; r++) {
        const codes = rows[start + r]!;
        rescoreRows.set(codes, r * dims);
        if (codes.length < dims) rescoreRows.fill(0, r * dims + codes.length, (r + 1) * dims);
      }
      for (const query of queries) {
        rescoreQuery.fill(0).set(query);
        this.kernel.rescore(this.at.rescoreQuery, this.at.rescoreRows, count, dims, this.at.rescoreOut);
        for (let r = 0; r < count; r++) dots[start + r] = Math.max(dots[start + r]!, rescoreOut[r]!);
      }
    }
    return dots;
  }
}
