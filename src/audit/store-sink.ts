/**
 * The audit trail in the shared Redis store (`metatools.audit.to: "store"`):
 * one list under the store's `audit` part, every replica adding to its
 * end. Each batch is one Lua script (RPUSH, LTRIM to `maxRecords`, PEXPIRE),
 * so the bound holds whoever writes; the list expires `TTL_MS` after its
 * last record, as every key metatools keeps in Redis has a TTL
 * (docs/deploy.md, "What Redis needs"). Read back from the end in chunks.
 */
import type { KeyValue } from "../store/kv.js";
import type { AuditSink } from "./log.js";
import { parseAuditLine, type AuditEntry } from "./record.js";

/** The list's key within the store's `audit` part. */
const KEY = "records";
/** The list is dropped when nothing was recorded for this long (as what search learns). */
const TTL_MS = 400 * 86_400_000;
/** Records read per round trip. */
const CHUNK = 1000;

// KEYS: the list. ARGV: prefix, maxRecords, ttl, line…
const APPEND = `
redis.call('RPUSH', KEYS[1], unpack(ARGV, 4))
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

// KEYS: the list. ARGV: prefix, start, stop (negative: from the end).
const RANGE = `return redis.call('LRANGE', KEYS[1], ARGV[2], ARGV[3])`;

export class AuditStoreSink implements AuditSink {
  constructor(
    private readonly store: KeyValue,
    private readonly maxRecords: number,
  ) {
    if (!store.script) throw new Error(`the audit trail needs a Redis store, not ${store.where}`);
  }

  get where(): string {
    return `${this.store.where} (the audit list)`;
  }

  async append(lines: readonly string[]): Promise<void> {
    if (lines.length) await this.store.script!(APPEND, [KEY], [String(this.maxRecords), String(TTL_MS), ...lines]);
  }

  async recent(count: number, accept: (entry: AuditEntry) => boolean): Promise<{ entries: AuditEntry[]; skipped: number }> {
    const entries: AuditEntry[] = [];
    let skipped = 0;
    // From the end, a chunk at a time, until enough are found or the list (at most maxRecords) is read.
    for (let end = -1; entries.length < count && -end <= this.maxRecords; end -= CHUNK) {
      const lines = (await this.store.script!(RANGE, [KEY], [String(end - CHUNK + 1), String(end)])) as string[];
      for (let i = lines.length - 1; i >= 0 && entries.length < count; i--) {
        const entry = parseAuditLine(lines[i]!);
        if (!entry) skipped++;
        else if (accept(entry)) entries.push(entry);
      }
      if (lines.length < CHUNK) break;
    }
    return { entries: entries.reverse(), skipped };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
