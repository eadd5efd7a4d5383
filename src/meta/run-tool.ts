/**
 * run_tool: validated execution on the owning backend. Expected failures
 * (unknown id, bad arguments, backend down, timeout, the tool's own error)
 * come back as `ok: false` with guidance; only real faults are `isError`.
 */
import { z } from "zod";
import { DEFAULTS } from "../config/defaults.js";
import { formatCall, hint, recoverable, warning, type NextCall, type Refusal } from "../disclosure/guidance.js";
import { CACHE_MODES } from "../exec/cache.js";
import type { BackendErrorCode } from "../model/error-codes.js";
import type { RunOutcome } from "../exec/executor.js";
import { ATTR } from "../observe/telemetry.js";
import { MAX_TOOL_ID_CHARS, unknownTool } from "./lookup.js";
import { backendDown } from "./backend-down.js";
import { presentResult } from "./result.js";
import { approveCall } from "./approval.js";
import { READ_OUTPUT_ID } from "../disclosure/outputs.js";
import { defineMetaTool } from "./types.js";
import type { MetaServices } from "./services.js";
import { isOwnKind } from "../model/transport-kinds.js";
import { namespaceOf, type ToolRecord } from "../model/tool.js";

const runArgs = z.strictObject({
  tool_id: z.string().max(MAX_TOOL_ID_CHARS).describe("namespace:tool"),
  args: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments (schema: describe_tool)."),
  cache: z.enum(CACHE_MODES).optional(),
  timeout_ms: z.int().min(1).max(3_600_000).optional(),
});
type RunArgs = z.output<typeof runArgs>;

/** Failures that say nothing of whether the tool was the right one: search learns nothing from them. */
const SAYS_NOTHING_OF_THE_TOOL = new Set<BackendErrorCode>(["timeout", "cancelled", "busy"]);

export const runTool = defineMetaTool({
  name: "run_tool",
  description:
    "Run a tool. args are checked first (a mistake returns a fixed call); read-only results may be cached; too large a result returns a handle and the call that reads it.",
  args: runArgs,
  annotations: { title: "Run tool", readOnlyHint: false, destructiveHint: true, openWorldHint: true },

  async handle(args, { services, budget, signal, onProgress, span, principal, caller, peer, session, typed, note }) {
    const toolArgs = args.args ?? {};
    const request = { toolId: args.tool_id, args: toolArgs, timeoutMs: args.timeout_ms, signal, cache: args.cache, onProgress, principal, peer };
    // A tool of a backend still starting: the call waits for it (never listed yet, or known only from the snapshot).
    const namespace = namespaceOf(args.tool_id) ?? "";
    const status = services.backends.state(namespace)?.status;
    // Also when the tool is known from the snapshot: the backend's own list, once it is up, is what the decision below is made on.
    if (status === "connecting" || status === "reconnecting") await services.backends.whenReady(namespace, signal);
    // The caller's profile decides before the backend hears of the call: allowed, refused, or a person asked (approval.ts).
    const record = services.registry.get(args.tool_id);
    if (record && services.executor.accepts(record.id, toolArgs)) {
      const approval = await approveCall(record, toolArgs, { services, peer, signal, typed, file: services.config.file });
      if (note) note.approval = approval.outcome;
      if (approval.refusal) return approval.refusal;
    }
    const outcome = await services.executor.run(request);
    // What the session searched for led here: search learns from how it went (a call refused before it reached the tool teaches nothing).
    // A timeout, a cancelled call or one that never got its turn says nothing of whether the tool was the right one.
    if (session && (outcome.kind === "ok" || (outcome.kind === "call_failed" && !SAYS_NOTHING_OF_THE_TOOL.has(outcome.code)))) {
      await services.learner?.ran(session, caller, outcome.record.id, outcome.kind === "ok" && !outcome.result.isError);
    }
    if (outcome.kind === "ok") {
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
    }
    return respond(outcome, args, toolArgs, services);
  },
});

function respond(outcome: Exclude<RunOutcome, { kind: "ok" }>, args: RunArgs, toolArgs: Record<string, unknown>, services: MetaServices): Refusal {
  const again = (changes: Partial<RunArgs>): NextCall => ({ tool: "run_tool", arguments: { tool_id: args.tool_id, args: toolArgs, ...changes } });
  switch (outcome.kind) {
    case "unknown_tool":
      // The suggested tool with these arguments only when they fit it; else its docs, which always answer.
      return unknownTool(
        services,
        outcome.id,
        (id) =>
          services.executor.accepts(id, toolArgs)
            ? { tool: "run_tool", arguments: { tool_id: id, args: toolArgs } }
            : { tool: "describe_tool", arguments: { tool_id: id } },
        again({}),
      );
    case "not_runnable": {
      const next: NextCall = { tool: "describe_tool", arguments: { tool_id: outcome.record.id, detail_level: "full" } };
      return recoverable(
        "not_runnable",
        `${outcome.record.id} comes from a catalog-only tool list: it can be searched and described, not run.`,
        hint(`Its docs: ${formatCall(next)}`, next),
      );
    }
    case "invalid_args": {
      const fields = outcome.problems.map((p) => `${p.field}: expected ${p.expected}${p.got !== undefined ? `, got ${JSON.stringify(p.got)}` : ""}`);
      const message = `Arguments for ${outcome.record.id} do not match its input schema; the backend was not called. ${fields.join("; ")}.`;
      const docs = `describe_tool({tool_id: "${outcome.record.id}"})`;
      // Only the agent (or its user) knows these: said, with no call that would fail again.
      const unknown = outcome.unknown.filter((f) => f !== "args");
      if (outcome.unknown.length) {
        const ask = unknown.length
          ? `Supply ${unknown.map((f) => `"${f.replace(/^args\./, "")}"`).join(", ")} (required; ${unknown.length === 1 ? "its value" : "their values"} cannot be guessed: find ${unknown.length === 1 ? "it" : "them"} or ask the user)`
          : "Fix the arguments";
        return recoverable("invalid_args", message, hint(`${ask}, then run it again. Schema: ${docs}.`), { problems: outcome.problems });
      }
      const next = again({ args: outcome.corrected });
      return recoverable("invalid_args", message, hint(`Corrected call: ${formatCall(next)}. Schema: ${docs}.`, next), { problems: outcome.problems });
    }
    case "backend_unavailable":
      return backendDown(services, outcome.record.id, outcome.record.namespace, outcome.state, again({}));
    case "invalid_output": {
      const fields = outcome.problems.map((p) => `${p.field}: expected ${p.expected}`);
      return recoverable(
        "invalid_output",
        `${outcome.record.id} returned structured content that does not match its output schema, so the result was withheld (strict output validation): ${fields.join("; ")}.`,
        warning(
          `The backend may not be the version its schema describes. If it ran a side effect, that happened. To receive such results with a warning instead, set metatools.run.outputValidation to "warn".`,
        ),
        { problems: outcome.problems },
      );
    }
    case "call_failed": {
      if (outcome.code === "timeout") {
        const timeout = (args.timeout_ms ?? services.backends.callTimeoutMs(outcome.record.namespace) ?? DEFAULTS.timeouts.callMs) * 2;
        const longer = again({ timeout_ms: timeout });
        if (!outcome.narrowed) return recoverable("timeout", outcome.message, hint(`Retry with more time: ${formatCall(longer)}`, longer));
        // Less work first: more time is the fallback, since the same work may well time out again.
        const narrower = again({ args: outcome.narrowed });
        return recoverable(
          "timeout",
          `${outcome.message}; its work was stopped`,
          hint(`Narrow it: ${formatCall(narrower)}; or give it more time: ${formatCall(longer)}`, narrower),
        );
      }
      if (outcome.code === "busy") {
        // Another caller's call holds a backend that asks questions: the same call, unchanged, once that one is done.
        return recoverable("busy", outcome.message, hint(`Retry the same call in a little while: ${formatCall(again({}))}`, again({})));
      }
      if (outcome.code === "needs_login") {
        return recoverable(
          "needs_login",
          outcome.message,
          warning(
            `Only a person can sign in (the message names the command, to run in a terminal); the running server picks it up without a restart. Then retry: ${formatCall(again({}))}`,
          ),
        );
      }
      const next: NextCall = { tool: "describe_tool", arguments: { tool_id: outcome.record.id, detail_level: "full" } };
      return recoverable(outcome.code, outcome.message, hint(`Check the tool's docs and examples: ${formatCall(next)}`, next));
    }
  }
}

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
