/**
 * Approvals: before run_tool sends a call to a backend, the caller's
 * profile decides (src/security/profiles.ts): allow, deny, or ask the
 * person at the calling client (MCP elicitation) with the tool, its server
 * and its arguments (redacted). Nothing a backend says takes part: the
 * question goes from metatools to the client before the backend hears of
 * the call, and only the client's answer counts.
 */
import { recoverable, warning, type Refusal } from "../disclosure/guidance.js";
import { TooManyQuestions, type ClientPeer } from "../model/peer.js";
import type { ToolRecord } from "../model/tool.js";
import { printable } from "../util/terminal.js";
import { redactDeep } from "../util/redact.js";
import type { MetaServices } from "./services.js";
import type { ApprovalOutcome } from "./types.js";
import { errorMessage } from "../util/errors.js";

/** How long a person may take to answer (the call's own deadline still applies). */
const ANSWER_MS = 10 * 60_000;

/** The most of the arguments the question quotes. */
const QUOTED_CHARS = 2000;

/** Tools a person allowed for the rest of a session, by the session's client (freed with it). */
const allowedForSession = new WeakMap<object, Set<string>>();

export interface ApprovalContext {
  services: MetaServices;
  peer?: ClientPeer;
  signal?: AbortSignal;
  /** A person typed the call (`metatools run`): that is the approval. */
  typed?: boolean;
  /** The config file an operator edits, named in refusals. */
  file?: string;
}

/** Undefined when the call may go ahead (with how), else the reply that refuses it; `outcome` says which, for the audit trail. */
export async function approveCall(
  record: ToolRecord,
  args: Record<string, unknown>,
  context: ApprovalContext,
): Promise<{ outcome: ApprovalOutcome; refusal?: Refusal }> {
  const profile = context.services.profile;
  if (!profile) return { outcome: "not_needed" };
  const { decision, because } = profile.approval(record);
  if (decision === "allow") return { outcome: "not_needed" };
  const where = `metatools.profiles.${profile.name}.approvals in ${context.file ?? "the config file"}`;
  if (decision === "deny")
    return {
      outcome: "denied",
      refusal: recoverable(
        "denied",
        `${record.id} may not be run: ${because}. Nothing was sent to it.`,
        warning(`Only an operator can change this (${where}). Tell the user; do not try to reach the tool another way.`),
      ),
    };
  if (context.typed) return { outcome: "accepted" };
  // What a person allowed is this definition on these terms: another tool under the same id, or this one changed, is asked about again.
  const key = `${profile.name}\0${record.id}\0${record.seal ?? ""}`;
  const session = context.peer?.id;
  if (session && allowedForSession.get(session)?.has(key)) return { outcome: "remembered" };
  if (!context.peer?.elicitation)
    return {
      outcome: "unasked",
      refusal: recoverable(
        "approval_required",
        `${record.id} needs a person's approval (${because}), and this client cannot ask one: it does not support MCP elicitation. Nothing was sent to the tool.`,
        warning(
          `Tell the user. They can run it from a client that supports elicitation, or an operator can allow it without asking: "${record.id}": "allow" under ${where}.`,
        ),
      ),
    };
  const offer = profile.remember === "ask";
  let answer: Awaited<ReturnType<ClientPeer["elicit"]>>;
  try {
    answer = await context.peer.elicit(
      {
        message: question(record, args, because, context.services),
        requestedSchema: {
          type: "object",
          properties: offer ? { remember: { type: "boolean", title: `Allow ${record.id} for the rest of this session without asking`, default: false } } : {},
        },
      },
      AbortSignal.any([context.signal ?? new AbortController().signal, AbortSignal.timeout(ANSWER_MS)]),
    );
  } catch (error) {
    if (error instanceof TooManyQuestions)
      return {
        outcome: "unasked",
        refusal: recoverable(
          "too_many_questions",
          `${record.id} needs a person's approval (${because}), and ${error.message}. Nothing was sent to the tool.`,
          warning("Answer or cancel the questions already waiting (input_required replies, tasks that need input), then run it again."),
        ),
      };
    return { outcome: "cancelled", refusal: declined(record, `the question got no answer (${errorMessage(error)})`) };
  }
  if (answer.action !== "accept")
    return { outcome: answer.action === "decline" ? "declined" : "cancelled", refusal: declined(record, `the user chose ${answer.action}`) };
  if (session && (profile.remember === "session" || (offer && answer.content?.remember === true))) {
    const allowed = allowedForSession.get(session) ?? new Set<string>();
    allowed.add(key);
    allowedForSession.set(session, allowed);
  }
  return { outcome: "accepted" };
}

/** What the person reads: who asks, which tool of which server, with what, and why they are asked. */
function question(record: ToolRecord, args: Record<string, unknown>, because: string, services: MetaServices): string {
  // Secrets never leave in the question; neither do control or direction characters that could make it read otherwise.
  let quoted = printable(JSON.stringify(redactDeep(args, services.redact), null, 1).replace(/\n\s*/g, " "));
  if (quoted.length > QUOTED_CHARS) quoted = `${quoted.slice(0, QUOTED_CHARS)}… (${quoted.length} characters)`;
  return [
    `metatools asks before running a tool (${because}).`,
    `Tool: ${record.id} (server "${record.namespace}")${record.annotations.readOnlyHint === true ? "" : ", which may change or delete data"}.`,
    `Arguments: ${quoted}`,
    "Accept to run it; decline and nothing is sent to the tool.",
  ].join("\n");
}

function declined(record: ToolRecord, why: string): Refusal {
  return recoverable(
    "declined",
    `${record.id} was not run: ${why}. Nothing was sent to the tool.`,
    warning("Do not run it again unless the user asks for it; ask them what to do instead."),
  );
}
