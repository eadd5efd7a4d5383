/**
 * run_tool: validated execution on the owning backend (the path every
 * call takes, run-path.ts), its result presented within the budget.
 * Expected failures (unknown id, bad arguments, backend down, timeout, the
 * tool's own error) come back as `ok: false` with guidance; only real
 * faults are `isError`.
 */
import * as z from "zod";
import type { NextCall } from "../disclosure/guidance.js";
import { CACHE_MODES } from "../exec/cache.js";
import { ATTR } from "../observe/telemetry.js";
import { MAX_TOOL_ID_CHARS } from "./lookup.js";
import { presentResult } from "./result.js";
import { runPath } from "./run-path.js";
import { programFor } from "./program-host.js";
import { RUN_PROGRAM_ID } from "../builtin/run-program.js";
import { READ_OUTPUT_ID } from "../disclosure/outputs.js";
import { defineMetaTool } from "./types.js";
import type { MetaServices } from "./services.js";
import { isOwnKind } from "../model/transport-kinds.js";
import type { ToolRecord } from "../model/tool.js";

const runArgs = z.strictObject({
  tool_id: z.string().max(MAX_TOOL_ID_CHARS).describe("namespace:tool"),
  args: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments (schema: describe_tool)."),
  cache: z.enum(CACHE_MODES).optional(),
  timeout_ms: z.int().min(1).max(3_600_000).optional(),
});

export const runTool = defineMetaTool({
  name: "run_tool",
  description: "Run a tool: bad args return the fixed call; read-only results may be cached.",
  args: runArgs,
  // A call that timed out is answered with the same call and a longer timeout_ms.
  unlisted: ["timeout_ms"],
  annotations: { title: "Run tool", readOnlyHint: false, destructiveHint: true, openWorldHint: true },

  async handle(args, context) {
    const { services, budget, span, principal } = context;
    // A program's calls come back through this caller's own path (program-host.ts), linked to the run in the audit trail.
    const host = args.tool_id === RUN_PROGRAM_ID ? programFor(context) : undefined;
    const ran = await runPath(args, context, { learn: true, ...(host ? { host } : {}) });
    if ("refusal" in ran) return ran.refusal;
    const { outcome } = ran;
    span?.set({ [ATTR.cache]: outcome.cache });
    return presentResult(outcome, {
      budget,
      // What a handle kept (read_output) comes back whole: the agent asked for it by name.
      mediaBudget: outcome.record.id === READ_OUTPUT_ID ? services.outputs.maxBytes : services.config.budgets.mediaBytes,
      outputs: services.outputs,
      links: services.resources.links,
      principal,
      builtin: isOwnKind(services.backends.state(outcome.record.namespace)?.kind),
      ...(outcome.result.isError ? { recovery: siblingFor(services, outcome.record, outcome.result) } : {}),
    });
  },
});

/**
 * A tool of the same backend that an error points to and that needs no
 * arguments: "path outside allowed directories" → list_allowed_directories.
 * Every word of its name but the verb is in the error text.
 */
function siblingFor(services: MetaServices, record: ToolRecord, result: { content?: { type: string; text?: string }[] }): NextCall | undefined {
  const text = (result.content ?? [])
    .map((c) => (c.type === "text" ? (c.text ?? "") : ""))
    .join(" ")
    .toLowerCase();
  if (!text) return undefined;
  const words = new Set(
    text
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 3)
      .map((w) => w.slice(0, 6)),
  );
  for (const sibling of services.registry.namespaceRecords(record.namespace)) {
    if (sibling.id === record.id || !sibling.runnable || (sibling.inputSchema.required as unknown[] | undefined)?.length) continue;
    const named = sibling.name
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w.length >= 3 && !VERBS.has(w));
    if (named.length >= 2 && named.every((w) => words.has(w.slice(0, 6)))) return { tool: "run_tool", arguments: { tool_id: sibling.id, args: {} } };
  }
  return undefined;
}

/** Verbs a tool name starts with, which say nothing of what an error is about. */
const VERBS = new Set(["list", "get", "show", "read", "fetch", "describe", "find", "search"]);
