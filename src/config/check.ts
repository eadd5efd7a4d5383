/**
 * Checks a value against a zod schema at the config's edge; the first
 * problem becomes a ConfigError naming the file and the field, in words a
 * person can act on.
 */
import type { z } from "zod";
import { ConfigError } from "../util/errors.js";
import { formatPath } from "./env.js";

export function check<T>(schema: z.ZodType<T>, value: unknown, file: string, prefix: string[]): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { issue, path: at, detail } = explain(result.error.issues[0]!);
  const path = [...prefix, ...at.map((p) => (typeof p === "symbol" ? String(p) : p))];
  throw new ConfigError(file, formatPath(path), issue.code === "unrecognized_keys" ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}` : detail);
}

/**
 * A union's "Invalid input" says nothing: the issue of the branch that got
 * furthest into the value is the one meant (an embedder object with a wrong
 * field, not "expected false"); when every branch fails at the value itself,
 * the message lists what each expected.
 */
function explain(issue: z.core.$ZodIssue): { issue: z.core.$ZodIssue; path: PropertyKey[]; detail: string } {
  if (issue.code !== "invalid_union" || !issue.errors.length) return { issue, path: issue.path, detail: issue.message };
  const branches = issue.errors.filter((errors) => errors.length).map((errors) => explain(errors[0]!));
  if (!branches.length) return { issue, path: issue.path, detail: issue.message };
  const deepest = branches.reduce((best, b) => (b.path.length > best.path.length ? b : best), branches[0]!);
  if (deepest.path.length) return { ...deepest, path: [...issue.path, ...deepest.path] };
  const expected = branches.map((b) => b.detail.replace(/^Invalid input: (expected )?/, "").replace(/, received .*$/, ""));
  return { issue: deepest.issue, path: issue.path, detail: `expected ${expected.join(" or ")}` };
}
