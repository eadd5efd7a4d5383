/**
 * Checks a value against a zod schema at the config's edge; the first
 * problem becomes a ConfigError naming the file and the field, in words a
 * person can act on.
 */
import type * as z from "zod";
import { ConfigError } from "../util/errors.js";
import { didYouMean, misspeltAs } from "./did-you-mean.js";
import { formatPath } from "./env.js";

export function check<T>(schema: z.ZodType<T>, value: unknown, file: string, prefix: string[]): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { issue, path: at, detail, siblings } = explain(result.error.issues[0]!, result.error.issues);
  const path = [...prefix, ...at.map((p) => (typeof p === "symbol" ? String(p) : p))];
  if (issue.code !== "unrecognized_keys") throw new ConfigError(file, formatPath(path), `${detail}${misspeltAs(issue, siblings)}`);
  const keys = issue.keys.map((k) => `"${k}"`).join(", ");
  throw new ConfigError(file, formatPath(path), `unknown field(s) ${keys}${didYouMean(schema, at, issue.keys)}`);
}

/** The issue meant, where it is, in words, and the issues found beside it (the same branch, paths relative alike). */
interface Explained {
  issue: z.core.$ZodIssue;
  path: PropertyKey[];
  detail: string;
  siblings: readonly z.core.$ZodIssue[];
}

/**
 * A union's "Invalid input" says nothing: the issue of the branch that got
 * furthest into the value is the one meant (an embedder object with a wrong
 * field, not "expected false"); when every branch fails at the value itself,
 * the message lists what each expected.
 */
function explain(issue: z.core.$ZodIssue, siblings: readonly z.core.$ZodIssue[]): Explained {
  if (issue.code !== "invalid_union" || !issue.errors.length) return { issue, path: issue.path, detail: issue.message, siblings };
  const branches = issue.errors.filter((errors) => errors.length).map((errors) => explain(errors[0]!, errors));
  if (!branches.length) return { issue, path: issue.path, detail: issue.message, siblings };
  const deepest = branches.reduce((best, b) => (b.path.length > best.path.length ? b : best), branches[0]!);
  if (deepest.path.length) return { ...deepest, path: [...issue.path, ...deepest.path] };
  const expected = branches.map((b) => b.detail.replace(/^Invalid input: (expected )?/, "").replace(/, received .*$/, ""));
  return { issue: deepest.issue, path: issue.path, detail: `expected ${expected.join(" or ")}`, siblings: deepest.siblings };
}
