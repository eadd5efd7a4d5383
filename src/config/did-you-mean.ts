/**
 * "Did you mean": for a field the config does not have, the field it has
 * at the same place that is closest in spelling (`comand` → `command`,
 * `mcpServer` → `mcpServers`). The known fields are read from the schema
 * itself, so a new field is suggested with no list to keep.
 */
import type * as z from "zod";
import { nearest } from "../text/suggest.js";

/** How close a misspelling must be (text/suggest.ts's similarity): a typo or a missing letter, not a different word. */
const MIN_SIMILARITY = 0.6;

/** ` (did you mean "x"?)` for each unknown key that has a close known one, or "". */
export function didYouMean(schema: z.ZodType, path: readonly PropertyKey[], unknown: readonly string[]): string {
  const known = fieldsAt(schema, path);
  const guesses = unknown.flatMap((key) => {
    const guess = nearest(key, known, 1, MIN_SIMILARITY)[0];
    return guess ? [`"${guess}" for "${key}"`] : [];
  });
  return guesses.length ? ` (did you mean ${guesses.join(", ")}?)` : "";
}

/**
 * A required field reported missing while a field spelt like it is there
 * unknown (`modle` beside a missing `model`): ` (did you mean "model" for
 * "modle"?)`, or "". `siblings` are the issues found with it, so their paths
 * compare.
 */
export function misspeltAs(issue: z.core.$ZodIssue, siblings: readonly z.core.$ZodIssue[]): string {
  const name = issue.path.at(-1);
  if (issue.code !== "invalid_type" || typeof name !== "string" || !/received undefined/.test(issue.message)) return "";
  const parent = issue.path.slice(0, -1);
  for (const other of siblings) {
    if (other.code !== "unrecognized_keys" || other.path.length !== parent.length || other.path.some((p, i) => p !== parent[i])) continue;
    const typo = other.keys.find((key) => nearest(key, [name], 1, MIN_SIMILARITY).length);
    if (typo) return ` (did you mean "${name}" for "${typo}"?)`;
  }
  return "";
}

/** The field names an object at `path` may have, following wrappers, arrays, records and every union branch. */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  const found = new Set<string>();
  const walk = (node: unknown, rest: readonly PropertyKey[], depth: number) => {
    if (depth > 64) return;
    const def = (node as { _zod?: { def?: Def } } | undefined)?._zod?.def;
    if (!def) return;
    switch (def.type) {
      case "object":
        if (!rest.length) for (const key of Object.keys(def.shape ?? {})) found.add(key);
        else if (def.shape && typeof rest[0] === "string" && rest[0] in def.shape) walk(def.shape[rest[0]], rest.slice(1), depth + 1);
        else if (def.catchall) walk(def.catchall, rest.slice(1), depth + 1);
        return;
      case "record":
        if (rest.length) walk(def.valueType, rest.slice(1), depth + 1);
        return;
      case "array":
        if (rest.length) walk(def.element, rest.slice(1), depth + 1);
        return;
      case "union":
        for (const option of def.options ?? []) walk(option, rest, depth + 1);
        return;
      case "pipe":
        walk(def.in, rest, depth + 1);
        return;
      case "lazy":
        walk(def.getter?.(), rest, depth + 1);
        return;
      default:
        // optional, nullable, default, prefault, catch, readonly, nonoptional: one schema inside.
        if (def.innerType) walk(def.innerType, rest, depth + 1);
    }
  };
  walk(schema, path, 0);
  return [...found];
}

interface Def {
  type: string;
  shape?: Record<string, unknown>;
  catchall?: unknown;
  valueType?: unknown;
  element?: unknown;
  options?: unknown[];
  in?: unknown;
  getter?: () => unknown;
  innerType?: unknown;
}
