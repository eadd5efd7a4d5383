/**
 * A small JSONPath subset, enough to pull one part out of a large document:
 * `$.a.b`, `a.b` (the `$` is optional), `["key with.dots"]`, `[0]`, `[-1]`,
 * `[*]` (every element or value) and `[1:5]` (a slice). A path with `*` or a
 * slice yields a list; otherwise the value itself.
 */

import { isPlainObject } from "./data.js";

type Step = { key: string } | { index: number } | { all: true } | { from?: number; to?: number };

export type JsonPathMiss = { ok: false; error: string; at: string; available?: string[] };
export type JsonPathResult = { ok: true; value: unknown } | JsonPathMiss;

/** `path` extended by one object key: `.key`, or `["key"]` when it is not an identifier. */
export function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** A miss in words: where evaluation stopped and what exists there. */
export function describeMiss(path: string, miss: JsonPathMiss): string {
  return `${path}: ${miss.error} at ${miss.at}.${miss.available ? ` Available there: ${miss.available.join(", ")}.` : ""}`;
}

/** A path that does exist, one key below where the miss stopped; undefined when there is no object key there. */
export function suggestAfterMiss(miss: JsonPathMiss): string | undefined {
  const key = miss.available?.find((k) => !k.startsWith("["));
  return key === undefined ? undefined : childPath(miss.at, key);
}

export function parseJsonPath(path: string): Step[] | string {
  const steps: Step[] = [];
  const src = path.trim();
  let i = src.startsWith("$") ? 1 : 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === ".") {
      const m = /^\.([^.[\]]+)/.exec(src.slice(i));
      if (!m) return `expected a key after "." at position ${i}`;
      steps.push(m[1] === "*" ? { all: true } : { key: m[1]! });
      i += m[0].length;
    } else if (ch === "[") {
      const m = /^\[\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\*)|(-?\d+)|(-?\d*)\s*:\s*(-?\d*))\s*\]/.exec(src.slice(i));
      if (!m) return `cannot read the bracket at position ${i}; use ["key"], [0], [*] or [1:5]`;
      if (m[1] !== undefined) {
        const key = quotedKey(m[1]);
        if (key === undefined) return `the key at position ${i} is not a valid quoted string (check its escapes: \\", \\\\, \\u0041)`;
        steps.push({ key });
      } else if (m[2] !== undefined) steps.push({ key: m[2] });
      else if (m[3]) steps.push({ all: true });
      else if (m[4] !== undefined) steps.push({ index: Number(m[4]) });
      else steps.push({ from: m[5] ? Number(m[5]) : undefined, to: m[6] ? Number(m[6]) : undefined });
      i += m[0].length;
    } else if (i === 0) {
      const m = /^([^.[\]]+)/.exec(src);
      steps.push({ key: m![1]! });
      i += m![0].length;
    } else return `unexpected "${ch}" at position ${i}`;
  }
  return steps;
}

/** A double-quoted key's text with its escapes read as JSON reads them, or undefined when they are not valid. */
function quotedKey(text: string): string | undefined {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return undefined;
  }
}

/** Evaluates `path` on `root`; a miss says where it stopped and which keys exist there. */
export function evaluateJsonPath(root: unknown, path: string): JsonPathResult {
  const steps = parseJsonPath(path);
  if (typeof steps === "string") return { ok: false, error: steps, at: "$" };
  let current: unknown[] = [root];
  let many = false;
  let at = "$";
  for (const step of steps) {
    const next: unknown[] = [];
    for (const value of current) {
      if ("key" in step) {
        if (isPlainObject(value) && Object.hasOwn(value, step.key)) next.push(value[step.key]);
        else if (!many) return { ok: false, error: `no key "${step.key}"`, at, available: keysOf(value) };
      } else if ("index" in step) {
        if (Array.isArray(value) && step.index < value.length && step.index >= -value.length) next.push(value.at(step.index));
        else if (!many)
          return {
            ok: false,
            error: Array.isArray(value) ? `index ${step.index} is out of range (length ${value.length})` : "not an array",
            at,
            available: keysOf(value),
          };
      } else if ("all" in step) {
        if (Array.isArray(value)) next.push(...value);
        else if (isPlainObject(value)) next.push(...Object.values(value));
      } else if (Array.isArray(value)) next.push(...value.slice(step.from, step.to));
      else if (!many) return { ok: false, error: "not an array", at, available: keysOf(value) };
    }
    if (!("key" in step) && !("index" in step)) many = true;
    at = "key" in step ? childPath(at, step.key) : at + ("index" in step ? `[${step.index}]` : "all" in step ? "[*]" : `[${step.from ?? ""}:${step.to ?? ""}]`);
    current = next;
  }
  return { ok: true, value: many ? current : current[0] };
}

function keysOf(value: unknown): string[] | undefined {
  if (isPlainObject(value)) return Object.keys(value).slice(0, 30);
  if (Array.isArray(value)) return [`[0]…[${value.length - 1}]`];
  return undefined;
}
