/**
 * Guidance that rides on responses. Exactly one register per response:
 * `hint` (optional narrowing), `warning` (valid but suboptimal: reconsider) or
 * `must_follow` (ignoring it gives wrong results; rare). The first call the
 * guidance suggests is also given machine-readable as `next`.
 */

/** A ready call to one of the three meta-tools. */
export interface NextCall {
  tool: "search_tools" | "describe_tool" | "run_tool";
  arguments: Record<string, unknown>;
}

export type Severity = "hint" | "warning" | "must_follow";

/** The guidance fields of a reply, in the order a reply's register is chosen (the strongest first). */
export const GUIDANCE_KEYS = ["must_follow", "warning", "hint", "next"] as const;

/**
 * The one envelope every reply an agent sees shares (meta-tools, built-in
 * tools run through run_tool, errors): these fields sit at the top level of
 * the reply's JSON, never nested in a tool's result. Besides the guidance:
 * `handle` (where the whole of what the reply shows part of is kept; its
 * `summary`, when it has one, goes with it), `media_handle` (media kept for
 * `metatools:read_output`), `truncated` (the reply shows less than there is).
 */
export const ENVELOPE_KEYS = [...GUIDANCE_KEYS, "handle", "media_handle", "truncated"] as const;
export type EnvelopeKey = (typeof ENVELOPE_KEYS)[number];

export interface Guidance {
  severity: Severity;
  text: string;
  next?: NextCall;
}

export const hint = (text: string, next?: NextCall): Guidance => ({ severity: "hint", text, next });
export const warning = (text: string, next?: NextCall): Guidance => ({ severity: "warning", text, next });
export const mustFollow = (text: string, next?: NextCall): Guidance => ({ severity: "must_follow", text, next });

/** The response fields for a piece of guidance: `{hint|warning|must_follow, next?}`. */
export function guidanceFields(guidance: Guidance | undefined): Record<string, unknown> {
  if (!guidance) return {};
  return { [guidance.severity]: guidance.text, ...(guidance.next ? { next: guidance.next } : {}) };
}

/** `search_tools({query: "x", namespace: "y"})`: how a call is written inside guidance text. */
export function formatCall(call: NextCall): string {
  const args = Object.entries(call.arguments)
    .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
    .join(", ");
  return `${call.tool}({${args}})`;
}

/**
 * An expected failure the agent can fix: returned as content with
 * `isError: false`, so sibling calls in the client are not aborted.
 */
export function recoverable(code: string, message: string, guidance?: Guidance, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { ok: false, error: { code, message }, ...extra, ...guidanceFields(guidance) };
}
