/**
 * The audit trail as the config places it (`metatools.audit`): the sink a
 * server appends to and `metatools audit` reads. Opening costs nothing: the
 * file or the Redis connection is touched at the first record or read.
 */
import type { AuditConfig } from "../config/audit-schema.js";
import type { StoreConfig } from "../config/resolved.js";
import { openConfiguredStore } from "../store/open.js";
import { AuditFileSink } from "./file-sink.js";
import { AuditLog, type AuditSink } from "./log.js";
import { AuditStoreSink } from "./store-sink.js";

export function openAuditSink(audit: AuditConfig, store: StoreConfig): AuditSink {
  if (audit.to === "store") return new AuditStoreSink(openConfiguredStore(store, "audit"), audit.maxRecords);
  return new AuditFileSink(audit.file, { maxBytes: audit.maxBytes, keep: audit.keep });
}

/** The log a server records to; `warn` hears of records lost (a stalled or failing sink), once per problem. */
export function openAuditLog(audit: AuditConfig, store: StoreConfig, warn: (message: string) => void): AuditLog {
  return new AuditLog(openAuditSink(audit, store), { warn });
}
