/**
 * One call of a program, answered: its arguments read from the worker's
 * JSON text, the host asked (the caller's run_tool path), and the answer
 * made the worker's message, as JSON text again. A host that throws, or a
 * value that cannot be made JSON, is the program's error, never the
 * sandbox's.
 */
import type { ProgramAnswer, ProgramHost } from "../model/program.js";
import type { FromWorker, ToWorker } from "./protocol.js";

type CallMessage = Extract<FromWorker, { type: "call" }>;
/** An answer without its run id: each member of the union on its own. */
type Answer = Extract<ToWorker, { type: "answer" }> extends infer A ? (A extends unknown ? Omit<A, "runId"> : never) : never;

/** The answer to `message`, without its run id (the caller's to add). */
export async function answerCall(message: CallMessage, host: ProgramHost, signal: AbortSignal): Promise<Answer> {
  let args: unknown;
  try {
    args = JSON.parse(message.argsJson);
  } catch {
    args = {};
  }
  const answered = await host.call(message.op, args, message.toolId, signal).catch((error: unknown): ProgramAnswer => ({
    ok: false,
    error: { code: "tool_failed", message: error instanceof Error ? error.message : String(error) },
  }));
  let json: string | undefined;
  try {
    json = answered.ok ? JSON.stringify(answered.value ?? null) : undefined;
  } catch {
    json = undefined;
  }
  if (answered.ok && json !== undefined)
    return { type: "answer", callId: message.callId, ok: true, json, ...(answered.warnings?.length ? { warnings: answered.warnings } : {}) };
  return {
    type: "answer",
    callId: message.callId,
    ok: false,
    errorJson: JSON.stringify(answered.ok ? { code: "tool_failed", message: "the result could not be made JSON" } : answered.error),
  };
}
