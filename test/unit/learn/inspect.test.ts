/**
 * What `metatools learn --show` reports (src/learn/inspect.ts), over the
 * real memory store and learner: each term's tools with the weight they
 * rank with for the asking caller, and whose evidence it is.
 */
import { describe, expect, it } from "vitest";
import { showLearned } from "../../../src/learn/inspect.js";
import { Learner } from "../../../src/learn/learner.js";
import { LearnedStore } from "../../../src/learn/store.js";
import { LOCAL_PRINCIPAL } from "../../../src/security/principal.js";
import { openStore } from "../../../src/store/open.js";

const DAY = 86_400_000;
const settings = { halfLifeMs: 30 * DAY, shareAfterPrincipals: 3 };

describe("showLearned", () => {
  it("lists yours, imported and other callers' evidence, saying whether theirs is shared with you yet", async () => {
    let now = Date.now() - DAY;
    const store = new LearnedStore(openStore({ url: "memory", namespace: "t:learn", memoryMaxBytes: 1 << 24 }), settings);
    const learner = new Learner(store, { halfLifeMs: settings.halfLifeMs, windowMs: 600_000, maxEventsPerDay: 1000, keepQueries: false }, undefined, () => now);
    let session = 0;
    const teach = async (principal: string, query: string, tool: string) => {
      await learner.searched(`s${session}`, principal, query, []);
      await learner.ran(`s${session++}`, principal, tool, true);
    };
    await teach(LOCAL_PRINCIPAL, "rotate the logs", "ops:rotate");
    await teach("token:a", "send an email", "mail:send");
    await teach("token:b", "send an email", "mail:send");
    now += DAY;
    await store.import({ format: "metatools-learned", version: 1, exportedAt: "", terms: { purg: { "ops:purge": [2, now] } } }, now);

    const shown = await showLearned(store, LOCAL_PRINCIPAL, now, settings);
    // Most recently taught first: the import, then the rest.
    expect(shown[0]).toEqual({
      term: "purg",
      taught: new Date(now).toISOString(),
      tools: [expect.objectContaining({ id: "ops:purge", weight: 2, imported: 2, own: 0 })],
    });
    const rotate = shown.find((t) => t.term === "rotat")!.tools[0]!;
    expect(rotate).toMatchObject({ id: "ops:rotate", own: expect.closeTo(0.977, 2), imported: 0, others: { callers: 0, weight: 0, counted: false } });
    expect(rotate.weight).toBe(rotate.own);
    expect(Date.parse(rotate.taught)).toBe(now - DAY);
    // Two other callers taught "email": listed, not yet ranking for you (three must agree).
    const email = shown.find((t) => t.term === "email")!.tools[0]!;
    expect(email).toMatchObject({ id: "mail:send", weight: 0, own: 0, others: { callers: 2, counted: false } });

    await teach(LOCAL_PRINCIPAL, "send an email", "mail:send");
    const after = (await showLearned(store, LOCAL_PRINCIPAL, now, settings)).find((t) => t.term === "email")!.tools[0]!;
    expect(after.others).toMatchObject({ callers: 2, counted: true });
    expect(after.weight).toBeGreaterThan(after.own);
  });
});
