/**
 * One envelope for every reply: what a built-in tool's body says of the
 * reply rather than of its data (guidance, `next`, the `handle` its output
 * went under with that output's `summary`; also inside its `overflow`
 * block) is taken out of the structured content and set at the reply's top
 * level, where meta-tools and backend results keep it
 * (`ENVELOPE_KEYS`, src/disclosure/guidance.ts).
 */
import { ENVELOPE_KEYS, GUIDANCE_KEYS } from "../disclosure/guidance.js";

type Text = "hint" | "warning" | "must_follow";

export interface Lifted {
  /** The structured content without its envelope fields. */
  structured: Record<string, unknown> | undefined;
  /** `hint` / `warning` / `must_follow` (one of them) and `next`. */
  guidance: Record<string, unknown>;
  /** `handle` (with its `summary`), `media_handle`, `truncated`. */
  envelope: Record<string, unknown>;
}

const isEnvelopeKey = (key: string): boolean => (ENVELOPE_KEYS as readonly string[]).includes(key);
const isGuidanceKey = (key: string): boolean => (GUIDANCE_KEYS as readonly string[]).includes(key);

/** A built-in tool's structured content, split into its data and the envelope fields that go at the reply's top level. */
export function liftEnvelope(structured: Record<string, unknown> | undefined): Lifted {
  if (!structured || typeof structured !== "object") return { structured, guidance: {}, envelope: {} };
  const guidance: Record<string, unknown> = {};
  const envelope: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(structured)) {
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
        const register = textKey(guidance) ?? (key as Text);
        guidance[register] = [guidance[register], value].filter(Boolean).join(" ");
      }
    }
    rest.overflow = kept;
  }
  return { structured: rest, guidance, envelope };
}

/** Which text register the guidance uses, if any: the strongest it has. */
export function textKey(guidance: Record<string, unknown>): Text | undefined {
  return (["must_follow", "warning", "hint"] as const).find((key) => key in guidance);
}
