/**
 * The audit log's queue: `record` never waits for the sink, lines reach it
 * in order, and a sink that stalls past the bound costs records that are
 * counted and marked by a gap line where they would have been. The sink
 * here is a list in memory that can be held (a disk that stalls).
 */
import { describe, expect, it } from "vitest";
import { AuditLog, type AuditSink } from "../../../src/audit/log.js";
import { AUDIT_VERSION, argsDigest, parseAuditLine, type AuditEntry, type AuditRecord } from "../../../src/audit/record.js";

class HeldSink implements AuditSink {
  readonly where = "memory";
  readonly lines: string[] = [];
  private release: (() => void) | undefined;
  private held: Promise<void> | undefined;

  hold(): void {
    this.held = new Promise((resolve) => (this.release = resolve));
  }

  let(): void {
    this.release?.();
    this.held = undefined;
  }

  async append(lines: readonly string[]): Promise<void> {
    await this.held;
    this.lines.push(...lines);
  }

  async recent(): Promise<{ entries: AuditEntry[]; skipped: number }> {
    return { entries: [], skipped: 0 };
  }

  async close(): Promise<void> {}
}

const record = (n: number): AuditRecord => ({
  v: AUDIT_VERSION,
  time: "2025-01-01T00:00:00.000Z",
  principal: "local",
  profile: "default",
  tool: `t:n${n}`,
  args: argsDigest({ n }),
  approval: "not_needed",
  status: "ok",
  duration_ms: n,
});

const tools = (sink: HeldSink) => sink.lines.map((line) => parseAuditLine(line)).map((e) => (e && "tool" in e ? e.tool : `gap ${e?.dropped}`));

describe("AuditLog", () => {
  it("returns at once while the sink stalls, and writes every record in order once it moves", async () => {
    const sink = new HeldSink();
    sink.hold();
    const log = new AuditLog(sink, { batch: 3 });
    for (let n = 0; n < 10; n++) log.record(record(n));
    expect(sink.lines).toEqual([]);
    sink.let();
    await log.flush();
    expect(tools(sink)).toEqual(Array.from({ length: 10 }, (_, n) => `t:n${n}`));
    expect(log.counts).toEqual({ written: 10, dropped: 0 });
  });

  it("past maxQueued, drops and counts records, and writes a gap where they were", async () => {
    const sink = new HeldSink();
    sink.hold();
    const warnings: string[] = [];
    const log = new AuditLog(sink, { maxQueued: 4, batch: 100, warn: (m) => warnings.push(m) });
    // The first is in flight (held by the sink); four wait; the next three are dropped.
    for (let n = 0; n < 8; n++) log.record(record(n));
    expect(log.counts.dropped).toBe(3);
    expect(warnings).toEqual(["audit: 4 records are waiting for memory; newer ones are dropped until it catches up"]);
    sink.let();
    await log.flush();
    log.record(record(8));
    await log.close();
    expect(tools(sink)).toEqual(["t:n0", "t:n1", "t:n2", "t:n3", "t:n4", "gap 3", "t:n8"]);
    expect(log.counts).toEqual({ written: 6, dropped: 3 });
    // Told once, and nothing else: no write failed.
    expect(warnings).toHaveLength(1);
  });

  it("a gap still owed when the log closes is written last", async () => {
    const sink = new HeldSink();
    sink.hold();
    const log = new AuditLog(sink, { maxQueued: 1 });
    for (let n = 0; n < 4; n++) log.record(record(n));
    sink.let();
    await log.close();
    expect(tools(sink)).toEqual(["t:n0", "t:n1", "gap 2"]);
  });

  it("the digest is the same for arguments in another key order, differs for other values, and holds no value", () => {
    const secret = "sk-live-4f9a8b7c6d5e";
    const digest = argsDigest({ token: secret, nested: { b: 2, a: 1 } });
    expect(digest).toBe(argsDigest({ nested: { a: 1, b: 2 }, token: secret }));
    expect(digest).not.toBe(argsDigest({ token: `${secret}x`, nested: { b: 2, a: 1 } }));
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(digest).not.toContain(secret);
    expect(argsDigest(undefined)).toBe(argsDigest({}));
  });
});
