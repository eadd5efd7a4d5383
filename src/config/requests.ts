/**
 * The `metatools.requests` section: bounds on what a backend may send back
 * to the client during a call (elicitation, sampling), its schema and its
 * resolved form (the defaults are in defaults.ts, applied by fill.ts). The
 * backend's requests are its words, untrusted like its results
 * (docs/security.md).
 */
import * as z from "zod";
import { DEFAULTS } from "./defaults.js";
import type { Metatools, RequestLimits } from "./resolved.js";

export const requestsSectionSchema = z
  .object({
    maxPerCall: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        `Most questions (elicitation and sampling requests) a backend may send to the client during one run_tool call; the rest are refused to the backend. A client's overlapping calls on one backend share their allowances. Default ${DEFAULTS.requests.maxPerCall}.`,
      ),
    maxPerMinute: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(`Most questions one backend may send to clients in any minute, whoever calls it. Default ${DEFAULTS.requests.maxPerMinute}.`),
    maxConcurrent: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Most questions of one backend waiting for an answer at once; another is refused. Default ${DEFAULTS.requests.maxConcurrent}.`),
    maxTokens: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `The most tokens a backend's sampling request may ask the client's model for; a larger maxTokens is lowered to it. Default ${DEFAULTS.requests.maxTokens}.`,
      ),
  })
  .strict()
  .describe(
    "Requests backends send back to the client during a call (elicitation: ask the user; sampling: ask the model). They are the backend's words: redacted, marked with its namespace, and bounded.",
  );

/** A caller waits for its turn on a backend that asks at most the default call timeout (`callMs`), whoever holds it. */
export function resolveRequests(section: Metatools["requests"], callMs: number): RequestLimits {
  return { ...section, turnWaitMs: callMs };
}
