import type { SchemaValidator } from "../../src/exec/validator.js";

/** ajv's own map of every schema it compiled, summed over a validator's ajv instances (private; read only to show it does not grow). */
export function ajvCached(validator: SchemaValidator): number {
  return Object.values(validator as unknown as Record<string, { _cache?: Map<unknown, unknown> } | undefined>).reduce(
    (n, ajv) => n + (ajv && ajv._cache instanceof Map ? ajv._cache.size : 0),
    0,
  );
}
