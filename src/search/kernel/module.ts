/**
 * The kernel's WebAssembly module (dot-i8.wat, shipped compiled in
 * dot-i8.wasm.ts), an instance of it over a memory of its own, and the
 * arithmetic the kernel and its callers share: how rows are padded, how a
 * vector becomes integers.
 */
import { DOT_I8_SHARED_WASM, DOT_I8_WASM } from "./dot-i8.wasm.js";

/** Rows are padded to a multiple of this many values (the kernel reads 64 at a step). */
export const LANES = 64;

export const padded = (dims: number): number => Math.ceil(dims / LANES) * LANES;

/** The module's functions: addresses in its memory, and counts (dot-i8.wat says what each computes). */
export interface Kernel {
  best: (
    queries: number,
    count: number,
    matrix: number,
    rows: number,
    dims: number,
    qscales: number,
    rscales: number,
    out: number,
    step: number,
    sample: number,
  ) => void;
  above: (out: number, rows: number, floor: number, dst: number) => number;
  rescore: (query: number, rows: number, count: number, dims: number, out: number) => void;
}

/** `best`'s arguments, in order. */
export type BestArgs = Parameters<Kernel["best"]>;

const compiled = new Map<boolean, WebAssembly.Module | null>();

/**
 * The compiled module whose memory is shared between threads, or the one
 * whose memory is not; null where WebAssembly SIMD (or, for the first,
 * shared memory) is unavailable.
 */
export function kernelModule(shared: boolean): WebAssembly.Module | null {
  let module = compiled.get(shared);
  if (module !== undefined) return module;
  const bytes = Buffer.from(shared ? DOT_I8_SHARED_WASM : DOT_I8_WASM, "base64");
  const usable = typeof WebAssembly === "object" && (!shared || typeof SharedArrayBuffer === "function") && WebAssembly.validate(bytes);
  module = usable ? new WebAssembly.Module(bytes) : null;
  compiled.set(shared, module);
  return module;
}

const PAGE = 65_536;

/** The kernels' memories alive (`kernelBytes`). */
const memories = new Set<WeakRef<WebAssembly.Memory>>();

/**
 * The bytes the kernels' shared memories hold: shared memory is not in
 * process.memoryUsage().external, so what measures an engine's memory
 * (the bench) adds this.
 */
export function kernelBytes(): number {
  let bytes = 0;
  for (const ref of memories) {
    const memory = ref.deref();
    if (memory) bytes += memory.buffer.byteLength;
    else memories.delete(ref);
  }
  return bytes;
}

/** An instance of a module (`kernelModule(shared)`) over a memory of `bytes` or more: shared or not as the module wants it, never grown, so views on it stay valid. */
export function kernelOver(module: WebAssembly.Module, shared: boolean, bytes: number): { kernel: Kernel; memory: WebAssembly.Memory } {
  const pages = Math.max(1, Math.ceil(bytes / PAGE));
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared });
  if (shared) memories.add(new WeakRef(memory));
  return { kernel: new WebAssembly.Instance(module, { env: { memory } }).exports as unknown as Kernel, memory };
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
