/**
 * A vector as kept in memory: int16 codes and one scale (v ≈ codes ×
 * scale), half of float32's bytes and within 1/65,534 of its largest
 * value, so a dot product with it is the float one to about five decimals.
 * The embedding cache holds these (its file keeps the floats), the vector
 * index scores its best candidates with them, and its int8 scan matrix is
 * made from them.
 */
export interface StoredVector {
  codes: Int16Array;
  scale: number;
}

/** Steps either side of zero. */
export const STORED_MAX = 32_767;

export function storeVector(vector: Float32Array): StoredVector {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
  const codes = new Int16Array(vector.length);
  if (!max) return { codes, scale: 0 };
  const scale = max / STORED_MAX;
  for (let i = 0; i < vector.length; i++) codes[i] = Math.round(vector[i]! / scale);
  return { codes, scale };
}

/** The floats back (within half a step of the ones stored). */
export function restoreVector({ codes, scale }: StoredVector): Float32Array {
  const vector = new Float32Array(codes.length);
  for (let i = 0; i < codes.length; i++) vector[i] = codes[i]! * scale;
  return vector;
}
