/**
 * The path every call of a tool takes, from run_tool and from a program
 * alike (program-host.ts): the wait for a backend still starting, the
 * caller's profile and approvals (approval.ts), the executor (validation,
 * cache, the backend, output checks), and what search learns of it; a call
 * that does not succeed becomes its refusal, with the guidance run_tool
 * gives. Presenting a result (the budget, handles, media) is the caller's.
 */
import { DEFAULTS } from "../config/defaults.js";
import { formatCall, hint, recoverable, warning, type NextCall, type Refusal } from "../disclosure/guidance.js";
import type { CacheMode } from "../exec/cache.js";
import type { RunOutcome } from "../exec/executor.js";
import type { BackendErrorCode } from "../model/error-codes.js";
import { isOwnKind } from "../model/transport-kinds.js";
import { namespaceOf } from "../model/tool.js";
import { approveCall } from "./approval.js";
import { backendDown } from "./backend-down.js";
import { unknownTool } from "./lookup.js";
import type { MetaServices } from "./services.js";
import type { MetaContext } from "./types.js";
import type { ProgramHost } from "../model/program.js";

/** One call of a tool: run_tool's own arguments. */
export interface RunArgs {
  tool_id: string;
  args?: Record<string, unknown>;
  cache?: CacheMode;
  timeout_ms?: number;
}

/** Failures that say nothing of whether the tool was the right one: search learns nothing from them. */
const SAYS_NOTHING_OF_THE_TOOL = new Set<BackendErrorCode>(["timeout", "cancelled", "busy"]);

export type RunPathOutcome = { outcome: Extract<RunOutcome, { kind: "ok" }> } | { refusal: Refusal };

/**
 * Runs one call for the caller of `context`. `learn`: what the session searched for is taught by how it went (run_tool's
 * own calls; a program's calls follow no search of its session). `host`: for a built-in tool that runs programs.
 */
export async function runPath(
  args: RunArgs,
  context: Pick<MetaContext, "services" | "signal" | "onProgress" | "principal" | "caller" | "peer" | "session" | "typed" | "note">,
  options: { learn: boolean; host?: ProgramHost },
): Promise<RunPathOutcome> {
  const { services, signal, onProgress, principal, caller, peer, session, typed, note } = context;
  const toolArgs = args.args ?? {};
  const namespace = namespaceOf(args.tool_id) ?? "";
  // Only metatools' own tools are handed the program host: a backend never sees it.
  const host = options.host && isOwnKind(services.backends.state(namespace)?.kind) ? { host: options.host } : {};
  const request = { toolId: args.tool_id, args: toolArgs, timeoutMs: args.timeout_ms, signal, cache: args.cache, onProgress, principal, peer, ...host };
  // A tool of a backend still starting: the call waits for it (never listed yet, or known only from the snapshot).
  const status = services.backends.state(namespace)?.status;
  // Also when the tool is known from the snapshot: the backend's own list, once it is up, is what the decision below is made on.
  if (status === "connecting" || status === "reconnecting") await services.backends.whenReady(namespace, signal);
  // The caller's profile decides before the backend hears of the call: allowed, refused, or a person asked (approval.ts).
  const record = services.registry.get(args.tool_id);
  if (record && services.executor.accepts(record.id, toolArgs)) {
    const approval = await approveCall(record, toolArgs, { services, peer, signal, typed, file: services.config.file });
    if (note) note.approval = approval.outcome;
    if (approval.refusal) return { refusal: approval.refusal };
  }
  const outcome = await services.executor.run(request);
  // What the session searched for led here: search learns from how it went (a call refused before it reached the tool teaches nothing).
  // A timeout, a cancelled call or one that never got its turn says nothing of whether the tool was the right one.
  if (options.learn && session && (outcome.kind === "ok" || (outcome.kind === "call_failed" && !SAYS_NOTHING_OF_THE_TOOL.has(outcome.code)))) {
    await services.learner?.ran(session, caller, outcome.record.id, outcome.kind === "ok" && !outcome.result.isError);
  }
  if (outcome.kind === "ok") return { outcome };
  return { refusal: respond(outcome, args, toolArgs, services) };
}

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
