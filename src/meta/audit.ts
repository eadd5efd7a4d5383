/**
 * The audit record of one run_tool call (src/audit/): made by the dispatcher
 * once the call's reply is known (or it threw), queued without waiting, and
 * added to the call's span as the event `metatools.audit` with the same
 * fields. The arguments are kept as a digest only.
 */
import { argsDigest, AUDIT_VERSION, auditEventAttributes, type AuditRecord } from "../audit/record.js";
import { DEFAULT_PROFILE } from "../config/profiles-schema.js";
import type { SpanNotes } from "../observe/telemetry.js";
import type { MetaServices } from "./services.js";
import type { RunNote } from "./types.js";

export const AUDIT_EVENT = "metatools.audit";

/** What the dispatcher knows of a run_tool call when it begins. */
export interface AuditedCall {
  /** run_tool's `tool_id` as sent. */
  toolId: unknown;
  /** The tool's arguments (run_tool's `args`), as dispatched. */
  toolArgs: unknown;
  principal: string;
  profile?: string;
  /** Filled in by run_tool (the approval), read once it returns. */
  note: RunNote;
  /** `Date.now()` and `performance.now()` when the call began. */
  startedAt: number;
  started: number;
}

/**
 * Records the call with its `status`: `ok`, `tool_error`, run_tool's error code, or `fault`. The tool's id only when
 * it names a tool the registry knows (as the span does), so what an agent typed never fills the trail. Never throws.
 */
export function auditRun(services: Pick<MetaServices, "audit" | "registry">, span: SpanNotes, call: AuditedCall, status: string): void {
  if (!services.audit) return;
  try {
    const id = typeof call.toolId === "string" ? call.toolId : undefined;
    const record: AuditRecord = {
      v: AUDIT_VERSION,
      time: new Date(call.startedAt).toISOString(),
      principal: call.principal,
      profile: call.profile ?? DEFAULT_PROFILE,
      tool: (id !== undefined && services.registry.get(id)?.id) || "(unknown)",
      args: argsDigest(call.toolArgs),
      approval: call.note.approval ?? "not_needed",
      status,
      duration_ms: Math.max(0, Math.round(performance.now() - call.started)),
      ...(call.note.run ? { run: call.note.run } : {}),
    };
    services.audit.record(record);
    span.event(AUDIT_EVENT, auditEventAttributes(record));
  } catch {
    // The trail must never break a call: a record that cannot be made (arguments that cannot be serialized) is skipped.
  }
}
