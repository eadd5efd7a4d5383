/**
 * Each caller's slots (src/store/slots.ts): in one process a count, and on
 * a real Redis one set of leases every replica shares: two instances stand
 * for two replicas. A caller past its limit is refused on any replica while
 * another caller takes its first; a slot given back is free at once; the
 * slots of a replica that stopped (its leases not renewed) free themselves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyValue } from "../../src/store/kv.js";
import { openStore } from "../../src/store/open.js";
import { LocalSlots, SharedSlots, type Slot, type Slots } from "../../src/store/slots.js";
import { eventually } from "../helpers/eventually.js";
import { startRedis, type RedisServer } from "../helpers/redis.js";

let redis: RedisServer;
const opened: { close(): unknown }[] = [];
beforeAll(async () => {
  redis = await startRedis();
}, 20_000);
afterAll(async () => {
  for (const o of opened) await o.close();
  await redis?.stop();
});

let namespaces = 0;
function replicas(leaseMs?: number): [Slots, Slots] {
  const namespace = `slots${++namespaces}`;
  const make = () => {
    const kv: KeyValue = openStore({ url: redis.url, namespace, memoryMaxBytes: 1 << 20 });
    const slots = new SharedSlots(kv, "calls", () => {}, leaseMs);
    opened.push(kv, slots);
    return slots;
  };
  return [make(), make()];
}

describe.each(["local", "redis"] as const)("slots per caller (%s)", (kind) => {
  const pair = (): [Slots, Slots] => {
    if (kind === "redis") return replicas();
    const local = new LocalSlots();
    return [local, local];
  };

  it("stop an owner at its limit, on any replica, while another owner takes its first; a slot given back is free again", async () => {
    const [one, two] = pair();
    const held: Slot[] = [];
    for (let i = 0; i < 3; i++) held.push((await (i % 2 ? two : one).take("alice", 3))!);
    expect(held.every(Boolean)).toBe(true);
    expect(await one.take("alice", 3)).toBeUndefined();
    expect(await two.take("alice", 3)).toBeUndefined();
    expect(await two.take("bob", 3)).toBeDefined();
    expect(await one.held("alice")).toBe(3);
    held[0]!.release();
    held[0]!.release();
    const again = await eventually(
      () => two.take("alice", 3),
      (slot) => slot !== undefined,
    );
    expect(again).toBeDefined();
    expect(await one.take("alice", 3)).toBeUndefined();
  });
});

it("a replica that stops renewing its slots frees them within its lease", async () => {
  const [stopped, alive] = replicas(600);
  for (let i = 0; i < 2; i++) expect(await stopped.take("alice", 2)).toBeDefined();
  expect(await alive.take("alice", 2)).toBeUndefined();
  // Held past several leases while renewed (looked at all along), then not: the process "stops".
  for (const until = Date.now() + 1500; Date.now() < until;) {
    expect(await alive.take("alice", 2)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  stopped.close();
  const freed = await eventually(
    () => alive.take("alice", 2),
    (slot) => slot !== undefined,
    5000,
  );
  expect(freed).toBeDefined();
});
