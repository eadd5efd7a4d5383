/**
 * Where a program's calls go (src/scripts/): each call of a tool takes the
 * path run_tool takes (run-path.ts), for the caller of the run_tool call
 * that runs the program, under its profile, with its client: one of the
 * caller's call slots (shares.ts), the profile (a hidden tool does not
 * exist, word for word), validation (a violation comes back as the error
 * with the field, what was expected and the corrected arguments), approvals
 * (the person is asked through the same client, or the call is refused),
 * the cache, the backend, output checks, redaction, the result scanner
 * (its warning goes to the program and to the program's reply), an audit
 * record linked to the program's run, and a span. A search or a describe is
 * the meta-tool's own answer, through the same dispatcher.
 *
 * A call's result reaches the program whole, as data: its structured
 * content when there is one, else the JSON its text holds, else its text,
 * else its content blocks; up to `resultBytes`, past which the call fails
 * saying so (ask for less). Never a handle: the program reads it all.
 */
import type { Refusal } from "../disclosure/guidance.js";
import { jsonBytes } from "../disclosure/budget.js";
import { randomBytes } from "node:crypto";
import { DEFAULTS } from "../config/defaults.js";
import type { ProgramAnswer, ProgramError, ProgramHost, ProgramLimitsOverride, ProgramOp } from "../model/program.js";
import { isPlainObject } from "../util/data.js";
import { redactDeep } from "../util/redact.js";
import { MAX_TOOL_ID_CHARS } from "./lookup.js";
import { auditRun, type AuditedCall } from "./audit.js";
import { resultWarning } from "./result-scan.js";
import { runPath, type RunPathOutcome } from "./run-path.js";
import { shapeProblem } from "./shape.js";
import type { MetaContext, RunNote } from "./types.js";
import { ATTR } from "../observe/telemetry.js";
import { isOwnKind } from "../model/transport-kinds.js";

/** What the host needs of the run that made it: the call's context, and the dispatcher that answers search and describe as the caller. */
export interface ProgramRunContext {
  context: MetaContext;
  /** The program's run id: each of its calls' audit records names it. */
  run: string;
  /** The most bytes one result may reach the program with. */
  resultBytes: number;
}

/** The host of a program run_tool is about to run for this caller: a run id (named in the audit records), and its profile's limits. */
export function programFor(context: MetaContext): ProgramHost {
  const run = `run_${randomBytes(8).toString("hex")}`;
  if (context.note) context.note.run = run;
  const scripts = context.services.config.scripts ?? DEFAULTS.scripts;
  const own = context.services.profile?.scripts;
  const resultBytes = Math.min(scripts.resultBytes, own?.resultBytes ?? Infinity);
  return programHost({ context, run, resultBytes, ...(own ? { limits: own } : {}) });
}

export function programHost({ context, run, resultBytes, limits }: ProgramRunContext & { limits?: ProgramLimitsOverride }): ProgramHost {
  return {
    run,
    caller: context.caller,
    ...(limits ? { limits } : {}),
    async call(op: ProgramOp, args: unknown, toolId: string | undefined, signal: AbortSignal): Promise<ProgramAnswer> {
      if (op !== "call") return metaTool(context, op, args);
      return callTool(context, { run, resultBytes }, toolId ?? "", args, signal);
    },
  };
}

/** A search or a describe, as the meta-tool answers it for this caller; a refusal becomes the program's error. */
async function metaTool(context: MetaContext, op: "search" | "describe", args: unknown): Promise<ProgramAnswer> {
  if (!context.again) return { ok: false, error: { code: "tool_failed", message: `tools.${op} is not available here` } };
  const body = await context.again(op === "search" ? "search_tools" : "describe_tool", isPlainObject(args) ? args : {});
  if (body.ok === false) return { ok: false, error: errorOf(body as Refusal) };
  return { ok: true, value: JSON.parse(JSON.stringify(body)) as unknown };
}

async function callTool(
  context: MetaContext,
  run: { run: string; resultBytes: number },
  toolId: string,
  args: unknown,
  signal: AbortSignal,
): Promise<ProgramAnswer> {
  const { services, caller, principal, profile } = context;
  if (toolId.length > MAX_TOOL_ID_CHARS) return { ok: false, error: { code: "invalid_args", message: `a tool id is at most ${MAX_TOOL_ID_CHARS} characters` } };
  if (!isPlainObject(args))
    return { ok: false, error: { code: "invalid_args", message: `the arguments of tools.call("${toolId}", args) must be an object, as run_tool's args are` } };
  const bad = shapeProblem(args);
  if (bad) return { ok: false, error: { code: "invalid_args", message: `Arguments for ${toolId} were refused at args${bad.path.slice(1)}: ${bad.problem}.` } };
  // One of the caller's call slots, as any call it makes: a program's calls count in its share of calls in flight.
  const admitted = await services.shares?.call(caller);
  if (admitted && "refusal" in admitted) return { ok: false, error: errorOf(admitted.refusal) };
  const note: RunNote = { run: run.run };
  const audited: AuditedCall = { toolId, toolArgs: args, principal, profile, note, startedAt: Date.now(), started: performance.now() };
  const known = services.registry.get(toolId) !== undefined;
  const attributes = known
    ? { [ATTR.toolId]: toolId, [ATTR.namespace]: toolId.split(":")[0]!, [ATTR.program]: run.run }
    : { [ATTR.toolId]: "(unknown)", [ATTR.program]: run.run };
  try {
    return await services.telemetry.measure("run", `tool.exec ${known ? toolId : "(unknown)"}`, attributes, async (span) => {
      let ran: RunPathOutcome;
      try {
        ran = await runPath(
          { tool_id: toolId, args },
          { ...context, signal: AbortSignal.any([signal, ...(context.signal ? [context.signal] : [])]), note },
          { learn: false },
        );
      } catch (error) {
        auditRun(services, span, audited, "fault");
        return { ok: false, error: { code: "tool_failed", message: error instanceof Error ? error.message : String(error) } };
      }
      const answer = "refusal" in ran ? ({ ok: false, error: errorOf(ran.refusal) } as const) : valueOf(context, ran.outcome, run.resultBytes);
      if ("outcome" in ran) span.set({ [ATTR.cache]: ran.outcome.cache });
      auditRun(services, span, audited, answer.ok ? "ok" : String(answer.error.code));
      return answer;
    });
  } finally {
    if (admitted && "slot" in admitted) admitted.slot.release();
  }
}

type Ok = Extract<RunPathOutcome, { outcome: unknown }>["outcome"];

/** A result as the program reads it: whole data, redacted, with the scanner's warning; a tool's error, or one too large, as the program's error. */
function valueOf(context: MetaContext, outcome: Ok, resultBytes: number): ProgramAnswer {
  const { record, result } = outcome;
  const builtin = isOwnKind(context.services.backends.state(record.namespace)?.kind);
  const texts = (result.content ?? []).flatMap((block) => (block.type === "text" ? [block.text] : []));
  const text = texts.join("\n");
  const structured = result.structuredContent;
  if (result.isError) {
    // A built-in tool's own refusal carries its fields; a backend's error, its text.
    const own = builtin && isPlainObject(structured) && structured.ok === false ? errorOf(structured as unknown as Refusal) : undefined;
    return { ok: false, error: own ?? { code: "tool_error", message: text || "the tool reported an error", tool_id: record.id } };
  }
  const others = (result.content ?? []).filter((block) => block.type !== "text");
  let value: unknown;
  if (structured !== undefined) value = structured;
  else if (text && !others.length) value = jsonOr(text);
  else if (!texts.length) value = result.content ?? [];
  else value = result.content;
  value = redactDeep(value, context.services.redact);
  const bytes = jsonBytes(value);
  if (bytes > resultBytes)
    return {
      ok: false,
      error: {
        code: "result_too_large",
        message: `${record.id}'s result is ${bytes} bytes of JSON, more than the ${resultBytes} a program may read of one call (metatools.scripts.resultBytes)`,
        hint: "Ask the tool for less (a narrower path, a smaller page, a limit), or read it in parts.",
        tool_id: record.id,
      },
    };
  const warnings = [
    resultWarning(record.id, { text, structured, others: [], links: [] }),
    ...(outcome.outputProblems?.length
      ? [
          `${record.id}'s structured content does not match its output schema: ${outcome.outputProblems.map((p) => `${p.field}: expected ${p.expected}`).join("; ")}`,
        ]
      : []),
  ].filter((w): w is string => !!w);
  return { ok: true, value, ...(warnings.length ? { warnings } : {}), cache: outcome.cache };
}

/** A refusal as the program's error: its code and message, its guidance, and what it offers to fix (problems, the corrected arguments). */
function errorOf(refusal: Refusal): ProgramError {
  const { ok: _ok, error, next, ...rest } = refusal as Refusal & { next?: { tool: string; arguments: Record<string, unknown> } };
  const corrected = next?.tool === "run_tool" && isPlainObject(next.arguments.args) ? { corrected: next.arguments.args } : {};
  return { ...rest, ...corrected, ...(next ? { next } : {}), code: error.code, message: error.message };
}

function jsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
