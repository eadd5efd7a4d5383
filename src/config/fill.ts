/**
 * Defaults applied to a parsed config, generically: each field `DEFAULTS`
 * names that the file leaves out takes its default, at any depth, and each
 * field `DEFAULTS` does not name stays as written. The resolved type follows
 * from the two: a field with a default is required, with the schema's type.
 * So a new field with a default is its schema line and its `DEFAULTS` entry;
 * the resolver's hand code is for what no constant can say (paths against
 * the config's folder, values derived from others, checks across fields).
 */
import { isPlainObject } from "../util/data.js";

/** The same type, shown flat in editors and errors. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** `T` with the fields of `R` put in place of its own. */
export type Replace<T, R> = Simplify<Omit<T, keyof R> & R>;

/** A default no setting changes (`search.maxLimit`), as a resolved value: writable, its literal widened (`50` → number). */
type Widen<D> = D extends number
  ? number
  : D extends string
    ? string
    : D extends boolean
      ? boolean
      : D extends readonly (infer E)[]
        ? Widen<E>[]
        : D extends object
          ? { -readonly [K in keyof D]: Widen<D[K]> }
          : D;

/**
 * A parsed object `S` with the defaults `D` applied. Fields of `S` that `D`
 * leaves out keep their type and optionality; a field of `D` is required.
 */
export type Filled<S, D> = Simplify<Omit<S, keyof D> & { -readonly [K in keyof D]-?: K extends keyof S ? FillValue<S[K], D[K]> : Widen<D[K]> }>;

/** One field: an object is filled in turn; a leaf is the file's, or the default where the file may leave it out; an array is of the schema's type. */
type FillValue<S, D> = D extends readonly unknown[]
  ? Exclude<S, undefined>
  : D extends object
    ? [Exclude<S, undefined>] extends [never]
      ? Filled<object, D>
      : FillEach<Exclude<S, undefined>, D>
    : OrDefault<S, D>;

/** A required field (a union's tag, `type: "static"`) keeps its own type: the default never lands there. */
type OrDefault<S, D> = undefined extends S ? Exclude<S, undefined> | D : S;

/** Each object the schema allows is filled; anything else it allows instead (`false`: turned off) stays. */
type FillEach<S, D> = S extends readonly unknown[] ? S : S extends object ? Filled<S, D> : S;

/**
 * `given` with `defaults` applied at any depth: a field left out (undefined)
 * takes a copy of its default, an object is filled in turn, anything else
 * (a value, an array, `false`) is kept as given. Neither input is changed.
 * The fields come in the defaults' order, then the others as given, so the
 * result does not depend on how the file orders its keys (a backend's
 * identity hashes its `requests` as JSON).
 */
export function fillDefaults<S extends object, D extends object>(given: S | undefined, defaults: D): Filled<S, D> {
  const fields: Record<string, unknown> = { ...given };
  const out: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(defaults)) {
    const value = fields[key];
    out[key] = value === undefined ? structuredClone(fallback) : isPlainObject(value) && isPlainObject(fallback) ? fillDefaults(value, fallback) : value;
  }
  for (const [key, value] of Object.entries(fields)) if (!(key in out)) out[key] = value;
  return out as Filled<S, D>;
}
