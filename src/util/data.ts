/** Small helpers over plain JSON-like data, shared by config loading, JSON paths, client import and output. */

/** A non-null, non-array object: what JSON calls an object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A copy of `value` with `f` applied to every string inside it, at any depth; keys are kept as they are. */
export function mapStrings(value: unknown, f: (text: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  return value;
}
