/**
 * The daily learning allowance under concurrency: sessions of one principal
 * learning at once, on the real memory store and on a real Redis shared by
 * two stores (as two replicas), spend exactly the allowance and no more.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Learner } from "../../../src/learn/learner.js";
import { LearnedStore } from "../../../src/learn/store.js";
import type { KeyValue } from "../../../src/store/kv.js";
import { openStore } from "../../../src/store/open.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

const DAY = 86_400_000;
const CAP = 5;
const config = { halfLifeMs: 30 * DAY, windowMs: 600_000, maxEventsPerDay: CAP, shareAfterPrincipals: 3, keepQueries: false };
const NOW = 1_000 * DAY;

/** 30 sessions of one principal, each a search and a successful run, all at once; returns the evidence the tool got. */
async function thirtyAtOnce(kv: KeyValue): Promise<number | undefined> {
  const store = new LearnedStore(kv, config);
  const learner = new Learner(store, config, undefined, () => NOW);
  await Promise.all(
    Array.from({ length: 30 }, async (_, i) => {
      await learner.searched(`s${i}`, "token:a", "rotate the logs", []);
      await learner.ran(`s${i}`, "token:a", "ops:rotate", true);
    }),
  );
  return (await store.rows(["rotat"], "token:a", NOW)).get("rotat")?.["ops:rotate"]?.[0];
}

describe("the daily allowance, at once", () => {
  it(`on the memory store: 30 sessions learning at once teach exactly ${CAP} events`, async () => {
    const kv = openStore({ url: "memory", namespace: "t:learn", memoryMaxBytes: 1 << 24 });
    expect(await thirtyAtOnce(kv)).toBe(CAP);
  });

  it("the memory store's increment counts every caller at once and expires with its key", async () => {
    const kv = openStore({ url: "memory", namespace: "t", memoryMaxBytes: 1 << 20 });
    const counts = await Promise.all(Array.from({ length: 30 }, () => kv.increment("n", 60_000)));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    await kv.increment("short", 30);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await kv.increment("short", 30)).toBe(1);
  });

  describe("on a real Redis", () => {
    let redis: RedisServer;
    const opened: KeyValue[] = [];
    const open = () => {
      const kv = openStore({ url: redis.url, namespace: "t:learn", memoryMaxBytes: 0 });
      opened.push(kv);
      return kv;
    };
    beforeAll(async () => {
      redis = await startRedis();
    }, 30_000);
    afterAll(async () => {
      await Promise.all(opened.map((kv) => kv.close()));
      await redis?.stop();
    });

    it(`30 sessions learning at once teach exactly ${CAP} events`, async () => {
      expect(await thirtyAtOnce(open())).toBe(CAP);
    });

    it(`two replicas spending at once for one principal pass exactly ${CAP} times between them`, async () => {
      const [a, b] = [new LearnedStore(open(), config), new LearnedStore(open(), config)];
      const spent = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).spend("token:b", CAP, NOW)));
      expect(spent.filter(Boolean)).toHaveLength(CAP);
      // Another principal, and the same one the next day, have their own allowance.
      expect(await a.spend("token:c", CAP, NOW)).toBe(true);
      expect(await b.spend("token:b", CAP, NOW + DAY)).toBe(true);
    });
  });
});
