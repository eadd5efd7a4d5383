/**
 * The learner (src/learn/learner.ts) over a real memory store and a clock
 * the test moves: what a session's searches and runs teach, what they must
 * not, and what export, import and reset do with it.
 */
import { describe, expect, it } from "vitest";
import { Learner } from "../../../src/learn/learner.js";
import { LearnedStore } from "../../../src/learn/store.js";
import { openStore } from "../../../src/store/open.js";
import type { KeyValue } from "../../../src/store/kv.js";
import { StoreError } from "../../../src/store/kv.js";
import { LOCAL_PRINCIPAL } from "../../../src/security/principal.js";

const DAY = 86_400_000;
const config = { halfLifeMs: 30 * DAY, windowMs: 600_000, maxEventsPerDay: 1000, shareAfterPrincipals: 3, keepQueries: false };
/** The one user of stdio and the CLI, whom search ranks for unless told otherwise. */
const ME = LOCAL_PRINCIPAL;
const all = () => true;

function setup(overrides: Partial<typeof config> = {}, kv: KeyValue = openStore({ url: "memory", namespace: "t:learn", memoryMaxBytes: 1 << 24 })) {
  let now = 1_000 * DAY;
  const store = new LearnedStore(kv, { halfLifeMs: config.halfLifeMs, shareAfterPrincipals: overrides.shareAfterPrincipals ?? config.shareAfterPrincipals });
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
  const learner = new Learner(store, { ...config, ...overrides }, logger, () => now);
  return { learner, store, warnings, tick: (ms: number) => (now += ms), now: () => now };
}

const top = async (learner: Learner, query: string, principal = ME) => (await learner.rank(query, all, principal)).hits;

describe("Learner", () => {
  it("a successful run teaches the session's search; a similar query later finds the tool", async () => {
    const { learner } = setup();
    expect(await top(learner, "save the report as markdown")).toEqual([]);
    await learner.searched("s1", ME, "save the report as markdown", []);
    await learner.ran("s1", ME, "files:write_file", true);
    const hits = await top(learner, "save my report as a markdown file");
    expect(hits[0]?.id).toBe("files:write_file");
    expect(hits[0]!.score).toBeGreaterThan(0.2);
  });

  it("earlier searches of the same attempt learn at half weight; another session learns nothing from this one's run", async () => {
    const { learner } = setup();
    await learner.searched("s1", ME, "persist document", []);
    await learner.searched("s1", ME, "save the report", []);
    await learner.searched("s2", "bob", "weather tomorrow", []);
    await learner.ran("s1", ME, "files:write_file", true);
    const latest = (await top(learner, "save the report"))[0]!.score;
    const earlier = (await top(learner, "persist document"))[0]!.score;
    expect(earlier).toBeCloseTo(latest / 2, 5);
    expect(await top(learner, "weather tomorrow")).toEqual([]);
  });

  it("a failed run lowers what the search taught, and a run long after the search teaches nothing", async () => {
    const { learner, tick } = setup();
    for (const ok of [true, true, false]) {
      await learner.searched("s1", ME, "convert units", []);
      await learner.ran("s1", ME, "calc:convert", ok);
    }
    const after = (await top(learner, "convert units"))[0]!.score;
    await learner.searched("s2", ME, "convert units", []);
    await learner.ran("s2", ME, "calc:convert", true);
    expect((await top(learner, "convert units"))[0]!.score).toBeGreaterThan(after);
    await learner.searched("s3", ME, "resize image", []);
    tick(config.windowMs + 1);
    await learner.ran("s3", ME, "img:resize", true);
    expect(await top(learner, "resize image")).toEqual([]);
  });

  it("a quick reformulation passes over what learning raised in the first search; an unrelated search does not", async () => {
    const { learner, tick } = setup();
    for (const s of ["a", "b"]) {
      await learner.searched(s, ME, "book a table", []);
      await learner.ran(s, ME, "food:reserve", true);
    }
    const before = (await top(learner, "book a table"))[0]!.score;
    await learner.searched("c", ME, "book a table", ["food:reserve"]);
    tick(5000);
    // The next step of a plan (no word in common) passes over nothing.
    await learner.searched("c", ME, "weather tomorrow", []);
    expect((await top(learner, "book a table"))[0]!.score).toBe(before);
    await learner.searched("d", ME, "book a table", ["food:reserve"]);
    tick(5000);
    await learner.searched("d", ME, "book a table for four", []);
    expect((await top(learner, "book a table"))[0]!.score).toBeLessThan(before);
  });

  it("a hostile query teaches at most 32 terms of at most 64 characters", async () => {
    const { learner, store, now } = setup();
    const query = `${"x".repeat(5000)} ${Array.from({ length: 200 }, (_, i) => `word${i}`).join(" ")}`;
    await learner.searched("s", ME, query, []);
    await learner.ran("s", ME, "a:tool", true);
    const terms = Object.keys((await store.export(now())).terms);
    expect(terms.length).toBe(32);
    expect(Math.max(...terms.map((t) => t.length))).toBeLessThanOrEqual(64);
  });

  it("holds only sessions still within the window: ended sessions leave as others arrive", async () => {
    const { learner, tick } = setup();
    for (let i = 0; i < 50; i++) await learner.searched(`old${i}`, ME, "rotate the logs", []);
    expect(learner.heldSessions).toBe(50);
    tick(config.windowMs + 1);
    await learner.searched("new", ME, "rotate the logs", []);
    expect(learner.heldSessions).toBe(1);
  });

  it("plumbing runs (metatools:read_output) teach nothing", async () => {
    const { learner } = setup();
    await learner.searched("s", ME, "read the big result", []);
    await learner.ran("s", ME, "metatools:read_output", true);
    expect(await top(learner, "read the big result")).toEqual([]);
  });

  it("one principal's daily allowance caps what it teaches, and what it teaches ranks for it, not for another", async () => {
    const { learner, store, tick, now } = setup({ maxEventsPerDay: 2 });
    const evidence = async (principal: string) => (await store.rows(["rotat"], principal, now())).get("rotat")?.["evil:tool"]?.[0];
    for (let i = 0; i < 5; i++) {
      await learner.searched(`m${i}`, "mallory", "rotate the logs", []);
      await learner.ran(`m${i}`, "mallory", "evil:tool", true);
    }
    expect(await evidence("mallory")).toBe(2);
    expect((await top(learner, "rotate the logs", "mallory"))[0]).toEqual({ id: "evil:tool", score: 1 });
    expect(await top(learner, "rotate the logs")).toEqual([]);
    await learner.searched("a", ME, "rotate the logs", []);
    await learner.ran("a", ME, "good:tool", true);
    expect((await top(learner, "rotate the logs")).map((h) => h.id)).toEqual(["good:tool"]);
    tick(DAY);
    await learner.searched("m9", "mallory", "rotate the logs", []);
    await learner.ran("m9", "mallory", "evil:tool", true);
    expect(await evidence("mallory")).toBeCloseTo(2 * 0.5 ** (1 / 30) + 1, 2);
  });

  it(`what one principal teaches counts for others once ${config.shareAfterPrincipals} distinct principals agree`, async () => {
    const { learner } = setup();
    const teach = async (principal: string, times = 1) => {
      for (let i = 0; i < times; i++) {
        await learner.searched(`${principal}${i}`, principal, "send an email to my boss", []);
        await learner.ran(`${principal}${i}`, principal, "evil:exfil", true);
      }
    };
    await teach("mallory", 20);
    expect(await top(learner, "send an email to my boss", "bob")).toEqual([]);
    await teach("trent");
    expect(await top(learner, "send an email to my boss", "bob")).toEqual([]);
    // Two who agree share with each other no more than with anyone: each sees its own.
    expect((await top(learner, "send an email to my boss", "trent"))[0]).toEqual({ id: "evil:exfil", score: 0.5 });
    await teach("victor");
    const shared = await top(learner, "send an email to my boss", "bob");
    expect(shared[0]?.id).toBe("evil:exfil");
    // Mallory's twenty runs count no more than another caller's one: each other caller counts for at most 4 (shared.ts).
    expect(shared[0]!.score).toBe(1);
  });

  it("exports terms and tool ids only (queries only when asked), imports them elsewhere, and forgets on reset", async () => {
    const a = setup();
    await a.learner.searched("s", ME, "save the report as markdown", []);
    await a.learner.ran("s", ME, "files:write_file", true);
    const file = await a.store.export(a.now());
    expect(JSON.stringify(file)).not.toContain("markdown file");
    expect(Object.keys(file.terms)).toEqual(expect.arrayContaining(["save", "report", "markdown"]));
    expect(file.queries).toBeUndefined();
    const b = setup();
    expect(await b.store.import(file, b.now())).toBe(Object.keys(file.terms).length);
    expect((await top(b.learner, "save the report as markdown"))[0]?.id).toBe("files:write_file");
    await b.store.reset();
    expect(await top(b.learner, "save the report as markdown")).toEqual([]);
    const kept = setup({ keepQueries: true });
    await kept.learner.searched("s", ME, "save the report as markdown", []);
    await kept.learner.ran("s", ME, "files:write_file", true);
    expect((await kept.store.export(kept.now())).queries).toEqual({ "files:write_file": ["save the report as markdown"] });
  });

  it("known secrets are redacted before a query becomes terms or kept text", async () => {
    const kv = openStore({ url: "memory", namespace: "t:learn", memoryMaxBytes: 1 << 24 });
    const store = new LearnedStore(kv, { halfLifeMs: config.halfLifeMs });
    const learner = new Learner(
      store,
      { ...config, keepQueries: true },
      undefined,
      () => 0,
      (text) => text.replaceAll("hunter2secret", "[redacted]"),
    );
    await learner.searched("s", ME, "log in to the wiki with password hunter2secret", []);
    await learner.ran("s", ME, "wiki:login", true);
    const file = await store.export(0);
    expect(file.queries).toEqual({ "wiki:login": ["log in to the wiki with password [redacted]"] });
    // Nor does a secret become a learned term.
    expect(JSON.stringify(file)).not.toContain("hunter2secret");
    expect(Object.keys(file.terms)).toContain("wiki");
  });

  it("a failing store pauses learning with one warning; search goes on with no list", async () => {
    const broken: KeyValue = {
      kind: "redis",
      where: "redis://down",
      get: () => Promise.reject(new StoreError("redis://down", "connection refused")),
      set: () => Promise.reject(new StoreError("redis://down", "connection refused")),
      increment: () => Promise.reject(new StoreError("redis://down", "connection refused")),
      delete: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const { learner, warnings } = setup({}, broken);
    expect(await learner.rank("save the report", all)).toEqual({ hits: [] });
    await learner.searched("s", ME, "save the report", []);
    await learner.ran("s", ME, "files:write_file", true);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/search learning is paused: .*connection refused/);
  });
});
