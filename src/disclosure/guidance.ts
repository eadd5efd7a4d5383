/**
 * Guidance that rides on responses. Exactly one register per response:
 * `hint` (optional narrowing), `warning` (valid but suboptimal: reconsider) or
 * `must_follow` (ignoring it gives wrong results; rare). The first call the
 * guidance suggests is also given machine-readable as `next`.
 */
import type { FieldProblem } from "../exec/explain.js";
import type { Quarantined } from "../security/gate.js";
import type { ErrorCode } from "../model/error-codes.js";

/** A ready call to one of the three meta-tools. */
export interface NextCall {
  tool: "search_tools" | "describe_tool" | "run_tool";
  arguments: Record<string, unknown>;
}

/** What each envelope field holds. */
interface EnvelopeValues {
  must_follow: string;
  warning: string;
  hint: string;
  next: NextCall;
  handle: string;
  media_handle: string;
  truncated: boolean;
}

/** The guidance fields of a reply, in the order a reply's register is chosen (the strongest first). */
export const GUIDANCE_KEYS = ["must_follow", "warning", "hint", "next"] as const satisfies readonly (keyof EnvelopeValues)[];
export type GuidanceKey = (typeof GUIDANCE_KEYS)[number];
export type Severity = Exclude<GuidanceKey, "next">;

/**
 * The one envelope every reply an agent sees shares (meta-tools, built-in
 * tools run through run_tool, errors): these fields sit at the top level of
 * the reply's JSON, never nested in a tool's result. Besides the guidance:
 * `handle` (where the whole of what the reply shows part of is kept; its
 * `summary`, when it has one, goes with it), `media_handle` (media kept for
 * `metatools:read_output`), `truncated` (the reply shows less than there is).
 */
export const ENVELOPE_KEYS = [...GUIDANCE_KEYS, "handle", "media_handle", "truncated"] as const satisfies readonly (keyof EnvelopeValues)[];
export type EnvelopeKey = (typeof ENVELOPE_KEYS)[number];

/** `hint` | `warning` | `must_follow` (at most one: `guidanceFields` makes them) and `next`. */
export type GuidanceFields = { [K in GuidanceKey]?: EnvelopeValues[K] };

/** The envelope fields a reply may carry at its top level (`ENVELOPE_KEYS`). */
export type Envelope = { [K in EnvelopeKey]?: EnvelopeValues[K] };

export interface Guidance {
  severity: Severity;
  text: string;
  next?: NextCall;
}

export const hint = (text: string, next?: NextCall): Guidance => ({ severity: "hint", text, next });
export const warning = (text: string, next?: NextCall): Guidance => ({ severity: "warning", text, next });
export const mustFollow = (text: string, next?: NextCall): Guidance => ({ severity: "must_follow", text, next });

/** The response fields for a piece of guidance: `{hint|warning|must_follow, next?}`. */
export function guidanceFields(guidance: Guidance | undefined): GuidanceFields {
  if (!guidance) return {};
  return { ...textField(guidance.severity, guidance.text), ...(guidance.next ? { next: guidance.next } : {}) };
}

/** `{[severity]: text}`: one register's text. */
export function textField(severity: Severity, text: string): GuidanceFields {
  const fields: GuidanceFields = {};
  fields[severity] = text;
  return fields;
}

/** `search_tools({query: "x", namespace: "y"})`: how a call is written inside guidance text. */
export function formatCall(call: NextCall): string {
  return `${call.tool}({${formatArgs(call.arguments)}})`;
}

/** `offset: 5, tags: ["api"]`: arguments as formatCall writes them inside a call. */
export function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(", ");
}

/** What a refusal may carry besides its error and guidance. */
export type RefusalDetails = {
  /** `invalid_args`, `invalid_output`: what is wrong, field by field. */
  problems?: FieldProblem[];
  /** `unknown_tool`: the closest ids, best first. */
  did_you_mean?: string[];
  /** `quarantined`: the kind of hold, and the commands the person who reviews it runs. */
  quarantine?: QuarantineNote;
  /** `program_error`, `program_limit`: what the program did before it ended (its trace, logs, times) and where it failed. */
  program?: Record<string, unknown>;
};

/** What a reply says of a quarantined tool, as data: the kind of hold, that a person must act, and the commands they run. */
export type QuarantineNote = { kind: Quarantined["kind"]; waiting_for: "person"; review: string; approve: string };

/**
 * An expected failure, told as a reply (`ok: false`): its code and message,
 * what it may carry (`RefusalDetails`), and guidance to get past it.
 */
export type Refusal = { ok: false; error: { code: ErrorCode; message: string } } & RefusalDetails & Envelope;

/**
 * An expected failure the agent can fix: returned as content with
 * `isError: false`, so sibling calls in the client are not aborted.
 */
export function recoverable(code: ErrorCode, message: string, guidance?: Guidance, extra: RefusalDetails = {}): Refusal {
  return { ok: false, error: { code, message }, ...extra, ...guidanceFields(guidance) };
}
