/**
 * Output handles keep their promise when callers share a store: each caller
 * (principal) has its own share, so caller B flooding the store evicts only
 * B's oldest outputs, never caller A's; an evicted handle says it was
 * evicted, to its owner only; replies state the lifetime the store can
 * honour; and past the total bound a new output is refused rather than
 * evict another caller's. On the default memory store and on a real Redis
 * shared by two replicas, with the real executor fixture as the backend.
 */
import { join } from "node:path";
import KeyvRedis from "@keyv/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openReplica, type Caller, type Replica } from "../../helpers/callers.js";
import { servers, tempDir } from "../../helpers/harness.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

const A = "token:quota-test-a";
const B = "token:quota-test-b";
const MIB = 1 << 20;
/** The defaults: what an operator gets without setting anything. */
const SHARE = 64 * MIB;
const TOTAL = 256 * MIB;

const line = (chars: number) => ({ tool_id: "kv:long_line", args: { chars }, cache: "bypass" });
const read = (handle: string) => ({ tool_id: "metatools:read_output", args: { handle, start_line: 1, start_column: 1 } });
/** The answer with the handle's own id taken out, to compare two answers byte for byte. */
const scrub = (body: Record<string, any>, handle: string) => JSON.parse(JSON.stringify({ ...body, duration_ms: 0 }).replaceAll(handle, "@out_X"));

/** The part of a node-redis client these checks use. */
interface RawRedis {
  scanIterator(options: { MATCH: string; COUNT: number }): AsyncIterable<string[]>;
  memoryUsage(key: string): Promise<number | null>;
}

const replicas: Replica[] = [];
let redis: RedisServer | undefined;

async function replica(store: Record<string, unknown>, outputs: Record<string, unknown> = {}): Promise<Replica> {
  const opened = await openReplica({ mcpServers: { kv: servers.exec(join(tempDir(), "calls.log")) }, metatools: { code: { enabled: false }, store, outputs } });
  replicas.push(opened);
  return opened;
}

/** What Redis reports (MEMORY USAGE: value, key and overhead, as allocated) for the keys matching `pattern`. */
async function redisBytes(pattern: string): Promise<number> {
  const adapter = new KeyvRedis(redis!.url);
  const client = (await adapter.getClient()) as unknown as RawRedis;
  try {
    let sum = 0;
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) for (const key of keys) sum += (await client.memoryUsage(key)) ?? 0;
    return sum;
  } finally {
    await adapter.disconnect();
  }
}

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.close()));
  await redis?.stop();
});

/** A makes a 1 MB output; then B makes 25 outputs of 3 MB (75 MB, past any 64 MiB store), the flood of the issue. */
async function flood(a: Caller, b: Caller): Promise<{ mine: Record<string, any>; theirs: Record<string, any>[] }> {
  const mine = await a.run(line(1_000_000));
  expect(mine.handle).toMatch(/^@out_/);
  const theirs: Record<string, any>[] = [];
  for (let i = 0; i < 25; i++) theirs.push(await b.run(line(3_000_000)));
  expect(theirs.map((t) => t.ok)).toEqual(Array(25).fill(true));
  return { mine, theirs };
}

describe.each([
  ["the default memory store", false],
  ["Redis shared by two replicas", true],
])("on %s, with the default bounds", (_name, onRedis) => {
  let a: Caller;
  let b: Caller;
  let mine: Record<string, any>;
  let theirs: Record<string, any>[];
  let prefix: string;

  beforeAll(async () => {
    prefix = `quota-${onRedis ? "redis" : "memory"}`;
    if (onRedis) redis ??= await startRedis();
    const store = onRedis ? { url: redis!.url, prefix } : {};
    const first = await replica(store);
    // On Redis, B works through another replica: the shares hold across every process sharing the store.
    const second = onRedis ? await replica(store) : first;
    [a, b] = await Promise.all([first.caller(A), second.caller(B)]);
    ({ mine, theirs } = await flood(a, b));
  }, 120_000);

  it("A's handle is still readable after B's flood", async () => {
    const again = await a.run(read(mine.handle));
    expect(again).toMatchObject({ ok: true, handle: mine.handle, structured: { start_line: 1 } });
    expect(again.structured.content).toMatch(/^0123456789/);
  });

  it("B's oldest handle says it was evicted by B's later outputs, to B only; B's latest reads", async () => {
    const oldest = theirs[0]!.handle as string;
    const evicted = await b.run(read(oldest));
    expect(evicted).toMatchObject({ ok: false, error: { code: "evicted_handle" } });
    expect(evicted.error.message).toMatch(/evicted .* to make room for your later outputs: each caller keeps at most 64 MiB/);
    expect(evicted.hint).toContain("again");
    expect(await b.run(read(theirs.at(-1)!.handle))).toMatchObject({ ok: true });
    // To anyone else an evicted handle is exactly a handle that never existed; so is a live one.
    const never = "@out_AAAAAAAAAAAAAAAAAAAAAAAA";
    const unknown = scrub(await a.run(read(never)), never);
    expect(scrub(await a.run(read(oldest)), oldest)).toEqual(unknown);
    expect(scrub(await b.run(read(mine.handle)), mine.handle)).toEqual(unknown);
    expect(unknown).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
  });

  it("each reply states the lifetime the store honours: its minutes, or until its caller stores more than its share less its size, in the bytes replies report", () => {
    for (const reply of [mine, theirs[0]!]) {
      const match =
        /for 30 minutes, or until you store more than ([\d.]+) MiB of further outputs \(each caller keeps at most 64 MiB; its oldest go first\)/.exec(
          reply.hint,
        );
      expect(match, reply.hint).not.toBeNull();
      const room = Number(match![1]) * MIB;
      // Promised in the bytes replies report, which the store counts rounded up to an allocator's size class
      // (up to a quarter more) plus bookkeeping: outputs of those sizes must fit in it.
      expect(room).toBeLessThanOrEqual((SHARE - reply.summary.bytes) / 1.25);
      expect(room).toBeGreaterThan((SHARE - reply.summary.bytes) / 1.5);
    }
  });

  it.runIf(onRedis)("Redis holds no more than the bounds: B's outputs within B's share, all within the total", async () => {
    const ofB = await redisBytes(`${prefix}:out::${B}/*`);
    // 25 × 3 MB were made; at most B's share is held.
    expect(ofB).toBeGreaterThan(40 * MIB);
    expect(ofB).toBeLessThanOrEqual(SHARE);
    expect(await redisBytes(`${prefix}:out::*`)).toBeLessThanOrEqual(TOTAL);
  });
});

describe.each([
  ["the memory store", false],
  ["Redis", true],
])("at the total bound, on %s", (_name, onRedis) => {
  it("a new output is refused with store_full, nobody's handle is evicted for it, and a caller at its share still makes room from its own", async () => {
    const prefix = `quota-total-${onRedis ? "redis" : "memory"}`;
    if (onRedis) redis ??= await startRedis();
    // Room for three outputs of 600 KB a caller, and five in all.
    const bounds = { principalBytes: 2 * MIB, totalBytes: 3 * MIB };
    const server = await replica(onRedis ? { url: redis!.url, prefix } : {}, bounds);
    const [a, b] = await Promise.all([server.caller(A), server.caller(B)]);
    const ofA = [await a.run(line(600_000)), await a.run(line(600_000)), await a.run(line(600_000))];
    const ofB = await b.run(line(600_000));
    expect([...ofA, ofB].map((r) => r.ok)).toEqual([true, true, true, true]);

    const refused = await b.run(line(600_000));
    expect(refused).toMatchObject({ ok: false, error: { code: "store_full" } });
    expect(refused.error.message).toContain("total bound of 3 MiB (metatools.outputs.totalBytes)");
    expect(refused.warning).toContain("retry in a few minutes");
    expect(refused.handle).toBeUndefined();
    for (const made of [...ofA, ofB]) expect(await (made === ofB ? b : a).run(read(made.handle))).toMatchObject({ ok: true });

    // A, at its share, makes room from its own oldest: the total does not grow.
    const fourth = await a.run(line(600_000));
    expect(fourth.ok).toBe(true);
    expect(await a.run(read(ofA[0]!.handle))).toMatchObject({ ok: false, error: { code: "evicted_handle" } });
    expect(await b.run(read(ofB.handle))).toMatchObject({ ok: true });

    if (onRedis) {
      const held = await redisBytes(`${prefix}:out::*`);
      expect(held).toBeGreaterThan(2 * MIB);
      expect(held).toBeLessThanOrEqual(bounds.totalBytes);
    }
  }, 60_000);
});
