/**
 * One envelope for every reply: what a built-in tool's body says of the
 * reply rather than of its data (guidance, `next`, the `handle` its output
 * went under with that output's `summary`; also inside its `overflow`
 * block) is taken out of the structured content and set at the reply's top
 * level, where meta-tools and backend results keep it
 * (`ENVELOPE_KEYS`, src/disclosure/guidance.ts).
 */
import type { Body } from "../builtin/backend.js";
import { ENVELOPE_KEYS, GUIDANCE_KEYS, type EnvelopeKey, type GuidanceFields, type GuidanceKey, type Severity } from "../disclosure/guidance.js";

/** `handle` (with its `summary`), `media_handle`, `truncated`: a built-in tool's, as it set them. */
export type LiftedEnvelope = { handle?: string; media_handle?: string; truncated?: boolean; summary?: unknown };

export interface Lifted<T> {
  /** The body without its envelope fields: still a `T`, whose envelope fields are all optional. */
  structured: T;
  /** `hint` / `warning` / `must_follow` (one of them) and `next`. */
  guidance: GuidanceFields;
  envelope: LiftedEnvelope;
}

const isEnvelopeKey = (key: string): key is EnvelopeKey => (ENVELOPE_KEYS as readonly string[]).includes(key);
const isGuidanceKey = (key: string): key is GuidanceKey => (GUIDANCE_KEYS as readonly string[]).includes(key);

/** A built-in tool's body, split into its data and the envelope fields that go at the reply's top level. */
export function liftEnvelope<T extends Body>(body: T): Lifted<T> {
  const guidance: Record<string, unknown> = {};
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (isGuidanceKey(key)) guidance[key] = value;
    else if (isEnvelopeKey(key)) envelope[key] = value;
    else rest[key] = value;
  }
  // A stored output's summary describes the handle: it travels with it.
  if ("handle" in envelope && "summary" in rest) {
    envelope.summary = rest.summary;
    delete rest.summary;
  }
  const overflow = rest.overflow;
  if (overflow && typeof overflow === "object" && !Array.isArray(overflow)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(overflow)) {
      if (!isEnvelopeKey(key)) kept[key] = value;
      else if (!isGuidanceKey(key)) envelope[key] ??= value;
      else if (key === "next") guidance.next ??= value;
      // Two texts (the tool's own and its overflow's) become one, in the tool's register.
      else {
        const register = textKey(guidance) ?? key;
        guidance[register] = [guidance[register], value].filter(Boolean).join(" ");
      }
    }
    rest.overflow = kept;
  }
  // The fields moved are of the body's own envelope (typed as such in `Body`), and all optional there.
  return { structured: rest as T, guidance: guidance as GuidanceFields, envelope: envelope as LiftedEnvelope };
}

/** Which text register the guidance uses, if any: the strongest it has. */
export function textKey(guidance: GuidanceFields): Severity | undefined {
  return (["must_follow", "warning", "hint"] as const).find((key) => key in guidance);
}
