/**
 * The `metatools.profiles` section: named sets of tools a caller may see,
 * and the approvals its calls need (src/security/profiles.ts applies them).
 */
import * as z from "zod";
import { profileScriptsSchema } from "./scripts-schema.js";

/** What a call of a tool needs before it reaches the backend. */
export const DECISIONS = ["allow", "ask", "deny"] as const;
export type Decision = (typeof DECISIONS)[number];

const globs = z.array(z.string().min(1).max(200)).max(1000);

export const approvalsSchema = z
  .object({
    destructive: z
      .enum(DECISIONS)
      .optional()
      .describe(
        "For tools that may change or delete data (effective destructiveHint true: the MCP default for a tool not marked read-only; catalog overrides count): allow runs them, ask asks the calling person first (MCP elicitation), deny refuses them. Default allow.",
      ),
    tools: z
      .record(z.string().min(1).max(200), z.enum(DECISIONS))
      .optional()
      .describe(
        'Decisions for tools by id glob, over the destructive rule: `{"files:write_*": "ask", "files:read_*": "allow"}`. Where several globs match, the strictest wins (deny, then ask, then allow).',
      ),
    remember: z
      .enum(["ask", "session", "never"])
      .optional()
      .describe(
        "After a person accepts a call: ask (the question offers to allow the same tool for the rest of the session), session (always allowed for the rest of the session), never (ask every time). Default ask.",
      ),
  })
  .strict();

export const profileSchema = z
  .object({
    tools: z
      .object({
        allow: globs.optional().describe("Globs over tool ids (`files:*`); when set, only matching tools are in the profile."),
        deny: globs.optional().describe("Globs over tool ids left out of the profile; deny wins over allow."),
      })
      .strict()
      .optional(),
    readOnly: z.boolean().optional().describe("true keeps only tools whose effective readOnlyHint is true (catalog overrides count)."),
    approvals: approvalsSchema.optional(),
    scripts: profileScriptsSchema,
  })
  .strict()
  .describe("A set of tools and the approvals their calls need.");

export const profilesSectionSchema = z
  .record(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "a profile name is letters, digits, _ . - (it may appear in a URL path)"), profileSchema)
  .optional()
  .describe(
    "Named profiles. A caller gets one by its HTTP token (`http.tokens` entries `{token, profile}`), by the URL path (`/mcp/NAME`), or `serve --profile NAME` on stdio; everything it sees and runs follows it. `default` applies to callers given none; without it they see every tool.",
  );

export type ProfileSpec = z.infer<typeof profileSchema>;
export type ApprovalsSpec = z.infer<typeof approvalsSchema>;

/** The profile a caller given none gets: the one of this name if the config has it, else every tool. */
export const DEFAULT_PROFILE = "default";

/** The error for a profile name the config does not define. */
export function noProfile(name: string, profiles: Record<string, unknown> | undefined): string {
  const known = Object.keys(profiles ?? {});
  return `no profile "${name}" in metatools.profiles (${known.length ? `it has ${known.join(", ")}` : "it defines none"})`;
}
