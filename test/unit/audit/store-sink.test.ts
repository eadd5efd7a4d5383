/**
 * The audit trail in a real Redis: two logs (two replicas) add to one list,
 * which keeps the newest `maxRecords` and a TTL, and reads back from the
 * end across chunks. The memory store is refused: it could not be shared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../../src/audit/log.js";
import { AUDIT_VERSION, type AuditRecord } from "../../../src/audit/record.js";
import { AuditStoreSink } from "../../../src/audit/store-sink.js";
import type { KeyValue } from "../../../src/store/kv.js";
import { openStore } from "../../../src/store/open.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

let redis: RedisServer;
const opened: KeyValue[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await Promise.all(opened.map((kv) => kv.close()));
  await redis?.stop();
});

function store(namespace: string): KeyValue {
  const kv = openStore({ url: redis.url, namespace, memoryMaxBytes: 1 << 20 });
  opened.push(kv);
  return kv;
}

const record = (writer: string, n: number): AuditRecord => ({
  v: AUDIT_VERSION,
  time: new Date(1_700_000_000_000 + n).toISOString(),
  principal: `token:${writer}`,
  profile: "default",
  tool: `${writer}:t`,
  args: `sha256:${"a".repeat(64)}`,
  approval: "not_needed",
  status: "ok",
  duration_ms: n,
});

describe("AuditStoreSink on Redis", () => {
  it("two replicas' logs add to one list, capped at maxRecords (the newest kept, in order), with a TTL", async () => {
    const logs = ["a", "b"].map((writer) => ({ writer, log: new AuditLog(new AuditStoreSink(store("t1:audit"), 100), { batch: 16 }) }));
    for (let n = 0; n < 80; n++) for (const { writer, log } of logs) log.record(record(writer, n));
    await Promise.all(logs.map(({ log }) => log.flush()));
    const reader = new AuditStoreSink(store("t1:audit"), 100);
    const { entries, skipped } = await reader.recent(1000, () => true);
    expect(skipped).toBe(0);
    expect(entries).toHaveLength(100);
    for (const writer of ["a", "b"]) {
      const mine = entries.flatMap((e) => ("tool" in e && e.principal === `token:${writer}` ? [e.duration_ms] : []));
      // Each replica's newest records, in its own order, ending with its last.
      expect(mine.at(-1)).toBe(79);
      expect(mine).toEqual(Array.from({ length: mine.length }, (_, i) => 80 - mine.length + i));
    }
    const ttl = (await store("t1:audit").script!("return redis.call('PTTL', KEYS[1])", ["records"], [])) as number;
    expect(ttl).toBeGreaterThan(300 * 86_400_000);
    await Promise.all(logs.map(({ log }) => log.close()));
  });

  it("reads the last matching records back from the end, across chunks", async () => {
    const sink = new AuditStoreSink(store("t2:audit"), 5000);
    for (let start = 0; start < 2500; start += 250)
      await sink.append(Array.from({ length: 250 }, (_, i) => JSON.stringify(record((start + i) % 700 === 0 ? "rare" : "w", start + i))));
    await sink.append(["not a record"]);
    const { entries, skipped } = await sink.recent(3, (e) => "tool" in e && e.tool === "rare:t");
    // 2100 in the last chunk of 1000, 1400 and 700 in the two before it.
    expect(entries.map((e) => ("tool" in e ? e.duration_ms : -1))).toEqual([700, 1400, 2100]);
    expect(skipped).toBe(1);
  });

  it("refuses a store that is not Redis", () => {
    expect(() => new AuditStoreSink(openStore({ url: "memory", namespace: "t", memoryMaxBytes: 1 << 20 }), 100)).toThrow(/needs a Redis store/);
  });
});
