/**
 * One line of the audit trail, defined once: the zod schema checks what is
 * read back (a file or a Redis list is outside data), and gives the type the
 * writer fills. A record holds who called which tool, a digest of the
 * arguments and how it went; never an argument's value, nor any of the
 * result. A gap says records were lost (the disk or the store did not keep
 * up), so a reader knows the trail is incomplete there.
 */
import { createHash } from "node:crypto";
import * as z from "zod";
import { APPROVALS } from "../model/approval.js";
import { canonicalJson } from "../util/canonical-json.js";

/** The version of the line format; a reader skips lines of another. */
export const AUDIT_VERSION = 1;

/** Every approval outcome a record may carry: the one list (src/model/approval.ts). */
export { APPROVALS };

const label = z.string().max(300);

export const auditRecordSchema = z.strictObject({
  v: z.literal(AUDIT_VERSION),
  /** When the call began, ISO 8601 in UTC. */
  time: z.string().max(40),
  /** Who the call was made for (src/security/principal.ts): `local`, `anonymous`, or `token:…` (a hash, never the token). */
  principal: label,
  /** The caller's profile; `default` when it was given none. */
  profile: label,
  /** The tool's id, or `(unknown)` when the id named no tool (what the agent typed is not kept: unbounded, and its words). */
  tool: label,
  /** `sha256:` and the hex digest of the arguments as canonical JSON (keys sorted): equal arguments, equal digests. */
  args: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  approval: z.enum(APPROVALS),
  /** `ok`, `tool_error` (the tool ran and said it failed), run_tool's error code (`unknown_tool`, `invalid_args`, `timeout`…), or `fault`. */
  status: z.string().regex(/^[a-z][a-z0-9_]{0,39}$/),
  duration_ms: z.number().int().min(0),
  /** The program run (metatools:run_program) the call belongs to: the program's own record and each of its calls' carry it. */
  run: z
    .string()
    .regex(/^run_[0-9a-f]{16}$/)
    .optional(),
});

export const auditGapSchema = z.strictObject({
  v: z.literal(AUDIT_VERSION),
  time: z.string().max(40),
  /** Records lost just before this point. */
  dropped: z.number().int().min(1),
});

export type AuditRecord = z.infer<typeof auditRecordSchema>;
export type AuditGap = z.infer<typeof auditGapSchema>;
export type AuditEntry = AuditRecord | AuditGap;

export const isGap = (entry: AuditEntry): entry is AuditGap => "dropped" in entry;

/** A line read back, if it is one of ours. */
export function parseAuditLine(line: string): AuditEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = auditRecordSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const gap = auditGapSchema.safeParse(value);
  return gap.success ? gap.data : undefined;
}

/** What is digested for arguments nested too deeply to serialize (the dispatcher refuses them, and the call is still recorded). */
export const UNDIGESTIBLE = "(arguments nested too deeply to digest)";

/** The arguments' digest: equal for arguments that differ only in key order; the values cannot be read back from it. */
export function argsDigest(args: unknown): string {
  let text: string;
  try {
    text = canonicalJson(args ?? {});
  } catch {
    text = UNDIGESTIBLE;
  }
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** The OpenTelemetry event a record also is, on the call's span: its fields under `metatools.audit.*`. */
export function auditEventAttributes(record: AuditRecord): Record<string, string | number> {
  const { v: _v, ...fields } = record;
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [`metatools.audit.${key}`, value]));
}
