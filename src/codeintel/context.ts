/**
 * What every `code:` tool shares: the workspace, the parser, the byte budget
 * its body must fit, and the helpers that turn a refused path into guidance
 * with a ready call.
 */
import * as z from "zod";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Body } from "../builtin/backend.js";
import { formatCall, hint, recoverable, warning, type NextCall } from "../disclosure/guidance.js";
import { pathGlob } from "../util/glob.js";
import type { MatcherPool } from "../util/regex-worker.js";
import type { CodeParser } from "./parser.js";
import { isRefusal, type Refusal, type Target, type Workspace } from "./workspace.js";

export interface CodeContext {
  ws: Workspace;
  /** Workers for regex matching over large files (one kept warm). */
  matchers: MatcherPool;
  parser: CodeParser;
  /** The namespace the tools are served under (`code`), for the calls hints suggest. */
  namespace: string;
  /** The largest body a tool may return, in bytes (the inline budget less run_tool's envelope). */
  budget: number;
}

/** A run_tool call of one of the code tools, for `next` and hints. */
export function codeCall(context: CodeContext, tool: string, args: Record<string, unknown>): NextCall {
  return { tool: "run_tool", arguments: { tool_id: `${context.namespace}:${tool}`, args: dropUndefined(args) } };
}

/**
 * Resolves a path argument; a refusal becomes a recoverable body whose
 * guidance retries the same call with the closest existing path, or lists
 * the project when there is none.
 */
export async function target(
  context: CodeContext,
  tool: string,
  args: Record<string, unknown>,
  path: string | undefined,
  expect?: "file" | "dir",
): Promise<Target | Body> {
  const resolved = await context.ws.resolve(path, expect);
  if (!isRefusal(resolved)) return resolved;
  return refusalBody(context, tool, args, resolved);
}

/** Undefined when the call's glob (if any) can be matched; else a recoverable body with the call without it. */
export function globProblem(context: CodeContext, tool: string, args: Record<string, unknown>): Body | undefined {
  if (typeof args.glob !== "string") return undefined;
  try {
    pathGlob(args.glob);
    return undefined;
  } catch (error) {
    const next = codeCall(context, tool, { ...args, glob: undefined, offset: undefined });
    return recoverable(
      "invalid_glob",
      `The glob cannot be used: ${(error as Error).message}.`,
      hint(`Use a shorter glob such as "*.ts" or "src/**", or none: ${formatCall(next)}`, next),
    );
  }
}

/**
 * The call scoped to the busiest subdirectory of its path (most entries),
 * for a call that ran out of time; undefined when there is none to go to.
 */
export async function narrowPath<A extends { path?: string }>(context: CodeContext, args: A): Promise<A | undefined> {
  const start = await context.ws.resolve(args.path, "dir");
  if (isRefusal(start)) return undefined;
  const children = (await readdir(start.abs, { withFileTypes: true }).catch(() => []))
    .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules")
    .map((d) => (start.rel ? `${start.rel}/${d.name}` : d.name))
    .filter((rel) => !context.ws.isSecret(`${rel}/`))
    .slice(0, 100);
  const sized = await Promise.all(children.map(async (rel) => ({ rel, entries: (await readdir(join(context.ws.root, rel)).catch(() => [])).length })));
  const busiest = sized.sort((a, b) => b.entries - a.entries)[0];
  return busiest ? { ...args, path: busiest.rel, offset: undefined } : undefined;
}

export function isTarget(value: Target | Body): value is Target {
  return typeof value.abs === "string" && typeof value.rel === "string";
}

function refusalBody(context: CodeContext, tool: string, args: Record<string, unknown>, refusal: Refusal): Body {
  const tree = codeCall(context, "tree", {});
  const best = refusal.suggestions?.[0];
  if (refusal.code === "path_not_found" && best !== undefined) {
    const next = codeCall(context, tool, { ...args, path: best });
    const others = refusal.suggestions!.slice(1).map((s) => `"${s}"`);
    return recoverable(
      refusal.code,
      refusal.message,
      hint(`Did you mean "${best}"${others.length ? ` (or ${others.join(", ")})` : ""}? ${formatCall(next)}`, next),
    );
  }
  if (refusal.code === "not_a_file") {
    const next = codeCall(context, "tree", { path: args.path });
    return recoverable(refusal.code, refusal.message, hint(`List it instead: ${formatCall(next)}`, next));
  }
  if (refusal.code === "secret_path") {
    return recoverable(refusal.code, refusal.message, warning(`Do not try to read secrets another way. To see what else is there: ${formatCall(tree)}`, tree));
  }
  return recoverable(refusal.code, refusal.message, hint(`See the project's files: ${formatCall(tree)}`, tree));
}

export function dropUndefined(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** Common arguments of the paged code tools, documented once. */
export const PAGE_ARGS = {
  detail_level: z
    .enum(["exploring", "full"])
    .optional()
    .describe("exploring (default): compact, capped. full: complete detail, paged by offset/limit (default 50) with next_offset."),
  offset: z.int().min(0).optional().describe("Skip this many results, to page (default 0)."),
  limit: z.int().min(1).max(500).optional().describe("Results per page (default: the exploring cap, or 50 in full mode)."),
};
