/**
 * The learning file (src/learn/file-store.ts) through the learner and the
 * store a server uses: several stores on one file stand for several
 * processes on one config (each holds its own state and meets the others
 * only through the file). What each learns survives the others' writes, the
 * daily allowance and the per-caller rules hold across them, a reset
 * reaches them, a corrupt file is reported and replaced, and the file keeps
 * its bound.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LearnedFileStore } from "../../../src/learn/file-store.js";
import { Learner } from "../../../src/learn/learner.js";
import { LearnedStore } from "../../../src/learn/store.js";
import { LOCAL_PRINCIPAL } from "../../../src/security/principal.js";
import { tempDir } from "../../helpers/temp-dir.js";

const DAY = 86_400_000;
const config = { halfLifeMs: 30 * DAY, windowMs: 600_000, maxEventsPerDay: 1000, keepQueries: false };
const ME = LOCAL_PRINCIPAL;

/** One process's view of the file: its store, its learner, what it was warned of. */
function open(file: string, options: { maxEventsPerDay?: number; shareAfterPrincipals?: number; maxBytes?: number; clock?: () => number } = {}) {
  const warnings: string[] = [];
  const kv = new LearnedFileStore(file, { settings: config, maxBytes: options.maxBytes, warn: (m) => warnings.push(m) });
  const store = new LearnedStore(kv, { halfLifeMs: config.halfLifeMs, shareAfterPrincipals: options.shareAfterPrincipals ?? 3 });
  const learner = new Learner(store, { ...config, maxEventsPerDay: options.maxEventsPerDay ?? config.maxEventsPerDay }, undefined, options.clock);
  let session = 0;
  return {
    kv,
    store,
    warnings,
    /** A session of `principal` that searches `query` and then runs `tool` successfully. */
    teach: async (query: string, tool: string, principal = ME) => {
      const id = `s${session++}`;
      await learner.searched(id, principal, query, []);
      await learner.ran(id, principal, tool, true);
    },
    /** `principal`'s weight of `term` → `tool`, read afresh (a store of its own, so no generation is remembered). */
    weight: async (term: string, tool: string, principal = ME) =>
      (
        await new LearnedStore(kv, { halfLifeMs: config.halfLifeMs, shareAfterPrincipals: options.shareAfterPrincipals ?? 3 }).rows(
          [term],
          principal,
          Date.now(),
        )
      ).get(term)?.[tool]?.[0] ?? 0,
  };
}

describe("the learning file", () => {
  it("two processes on one config keep each other's learning: evidence adds up, nothing counted twice", async () => {
    const file = join(tempDir(), "learned.json");
    const [a, b] = [open(file), open(file)];
    await a.teach("rotate the logs", "ops:rotate");
    await a.teach("rotate the logs", "ops:rotate");
    await b.teach("rotate the logs", "ops:rotate");
    await b.teach("purge the cache", "ops:purge");
    a.kv.flush();
    // b writes after a: it reads a's write first and lays its own changes over it.
    b.kv.flush();
    // a learns more and writes again: what it wrote before is not added a second time.
    await a.teach("rotate the logs", "ops:rotate");
    a.kv.flush();
    const c = open(file);
    expect(await c.weight("rotat", "ops:rotate")).toBeCloseTo(4, 2);
    expect(await c.weight("purg", "ops:purge")).toBeCloseTo(1, 2);
    // And each process sees the other's once it read the file again (a server checks every 2 s; a write reads first).
    expect(await a.weight("purg", "ops:purge")).toBeCloseTo(1, 2);
    expect((await c.store.listed()).terms).toEqual(expect.arrayContaining(["rotat", "log", "purg", "cach"]));
  });

  it("the daily allowance survives a restart and counts both processes' events", async () => {
    const file = join(tempDir(), "learned.json");
    const a = open(file, { maxEventsPerDay: 5 });
    // 30 sessions at once in one process: the increment is atomic there, exactly 5 pass.
    await Promise.all(Array.from({ length: 30 }, () => a.teach("rotate the logs", "ops:rotate")));
    expect(await a.weight("rotat", "ops:rotate")).toBeCloseTo(5, 2);
    await a.kv.close();
    // Restarted, the day's allowance is spent: nothing more is learned today.
    const again = open(file, { maxEventsPerDay: 5 });
    await again.teach("rotate the logs", "ops:rotate");
    expect(await again.weight("rotat", "ops:rotate")).toBeCloseTo(5, 2);
    // Two processes spending at once: each within its own count, and the file holds the sum.
    const [p, q] = [open(file), open(file)];
    for (let i = 0; i < 3; i++) expect(await p.store.spend("token:b", 6, Date.now())).toBe(true);
    for (let i = 0; i < 3; i++) expect(await q.store.spend("token:b", 6, Date.now())).toBe(true);
    p.kv.flush();
    q.kv.flush();
    const r = open(file);
    expect(await r.store.spend("token:b", 6, Date.now())).toBe(false);
    expect(await r.store.spend("token:c", 6, Date.now())).toBe(true);
  });

  it("per-caller rules hold across processes: a caller's own counts at once, others' once enough callers agree", async () => {
    const file = join(tempDir(), "learned.json");
    const [a, b] = [open(file), open(file)];
    await a.teach("send an email to my boss", "evil:exfil", "token:a");
    await a.teach("send an email to my boss", "evil:exfil", "token:b");
    a.kv.flush();
    const reader = open(file);
    expect(await reader.weight("email", "evil:exfil", "token:a")).toBeGreaterThan(0);
    // Two callers agree: not yet for a third.
    expect(await reader.weight("email", "evil:exfil", "token:d")).toBe(0);
    // A third caller, in the other process: now it counts for everyone.
    await b.teach("send an email to my boss", "evil:exfil", "token:c");
    b.kv.flush();
    expect(await open(file).weight("email", "evil:exfil", "token:d")).toBeGreaterThan(0);
  });

  it("a reset by one process (metatools learn --reset) reaches the other, and the file holds nothing old", async () => {
    const file = join(tempDir(), "learned.json");
    const server = open(file);
    await server.teach("rotate the logs", "ops:rotate");
    server.kv.flush();
    const cli = open(file);
    expect(await cli.weight("rotat", "ops:rotate")).toBeGreaterThan(0);
    await cli.store.reset();
    await cli.kv.close();
    // The server learned a little more meanwhile; its next write reads the reset first.
    await server.teach("purge the cache", "ops:purge");
    server.kv.flush();
    expect(await server.weight("rotat", "ops:rotate")).toBe(0);
    expect(await open(file).weight("rotat", "ops:rotate")).toBe(0);
    const keys = Object.keys((JSON.parse(readFileSync(file, "utf8")) as { entries: Record<string, unknown> }).entries);
    expect(keys.filter((key) => key.startsWith("0:"))).toEqual([]);
  });

  it("a corrupt file is reported, read as empty and replaced at the next write; entries not valid are dropped one by one", async () => {
    const file = join(tempDir(), "learned.json");
    writeFileSync(file, '{"format": "metatools-learning", "version": 1, "entries": {"0:s:rotat": [{"ops:rotate": ');
    const a = open(file);
    a.kv.load();
    expect(a.warnings).toEqual([expect.stringMatching(/learned\.json is not a valid learning file \(.*JSON.*\).*replaced at the next write/)]);
    expect(await a.weight("rotat", "ops:rotate")).toBe(0);
    await a.kv.close();
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ format: "metatools-learning", version: 1, entries: {} });

    const now = Date.now();
    const entries = {
      "0:s:rotat": [{ "ops:rotate": { x: [1, now] } }, now + DAY],
      "0:s:purg": [{ "ops:purge": "much" }, now + DAY],
      "0:x:odd": [1, now + DAY],
    };
    writeFileSync(file, JSON.stringify({ format: "metatools-learning", version: 1, entries }));
    const b = open(file);
    expect(await b.store.rows(["rotat"], "token:z", now)).toBeInstanceOf(Map);
    expect(b.warnings).toEqual([expect.stringMatching(/2 entries not valid were dropped/)]);
    await b.kv.close();
    expect(Object.keys((JSON.parse(readFileSync(file, "utf8")) as { entries: object }).entries)).toEqual(["0:s:rotat"]);
  });

  it("holds its bound: past it, the terms least recently taught go, and the index stops listing them", async () => {
    const file = join(tempDir(), "learned.json");
    // Taught over the last 80 hours, the first word longest ago; its name sorts first too, so the order is also checked reversed.
    let at = Date.now() - 80 * 3600_000;
    const a = open(file, { maxBytes: 6000, clock: () => at });
    for (let i = 79; i >= 0; i--) {
      await a.teach(`word${i}x`, `ns:tool${i % 7}`);
      at += 3600_000;
    }
    a.kv.flush();
    expect(statSync(file).size).toBeLessThanOrEqual(6000);
    expect(a.warnings).toEqual([expect.stringMatching(/reached its bound \(6000 bytes\); the rows least recently taught go first/)]);
    const { terms } = await open(file).store.listed();
    expect(terms.length).toBeGreaterThan(5);
    expect(terms.length).toBeLessThan(80);
    expect(terms).toContain("word0x");
    expect(terms).not.toContain("word79x");
  });
});
