/** What search learns, as data (src/learn/model.ts): evidence that decays, rows that stay small, and a query's agreement with each tool. */
import { describe, expect, it } from "vitest";
import { addEvidence, decayed, MAX_TOOLS_PER_TERM, scoreQuery, type TermRow } from "../../../src/learn/model.js";

const DAY = 86_400_000;
const settings = { halfLifeMs: 30 * DAY };
const all = () => true;

describe("decay", () => {
  it.each([
    [0, 4],
    [30 * DAY, 2],
    [60 * DAY, 1],
    [-DAY, 4],
  ])("after %i ms, 4 is worth %d", (age, worth) => {
    expect(decayed([4, 1000], 1000 + age, settings)).toBeCloseTo(worth, 10);
  });
});

describe("addEvidence", () => {
  it("adds to the decayed weight and stamps the row with now", () => {
    const row = addEvidence({ "a:x": [2, 0] }, "a:x", 1, 30 * DAY, settings);
    expect(row).toEqual({ "a:x": [2, 30 * DAY] });
  });

  it("forgets weights that decayed to almost nothing, and floors negative ones at -2", () => {
    expect(addEvidence({ "a:old": [1, 0] }, "a:new", 1, 365 * DAY, settings)).toEqual({ "a:new": [1, 365 * DAY] });
    expect(addEvidence({ "a:x": [-1.5, 0] }, "a:x", -1, 0, settings)).toEqual({ "a:x": [-2, 0] });
  });

  it(`keeps at most ${MAX_TOOLS_PER_TERM} tools per term, the strongest`, () => {
    let row: TermRow = {};
    for (let i = 0; i < 40; i++) row = addEvidence(row, `a:t${i}`, 1 + i / 100, 0, settings);
    expect(Object.keys(row)).toHaveLength(MAX_TOOLS_PER_TERM);
    expect(row["a:t39"]).toBeDefined();
    expect(row["a:t0"]).toBeUndefined();
  });
});

describe("scoreQuery", () => {
  const rows = (entries: Record<string, TermRow>) => new Map(Object.entries(entries));

  it("scores a query whose every term led twice to one tool at 1", () => {
    const learned = rows({ save: { "f:write": [2, 0] }, report: { "f:write": [2, 0] } });
    expect(scoreQuery(learned, 2, 0, settings, all)).toEqual([{ id: "f:write", score: 1 }]);
  });

  it.each<[string, Record<string, TermRow>, number, { id: string; score: number }[]]>([
    ["a term seen once counts half", { save: { "f:write": [1, 0] } }, 1, [{ id: "f:write", score: 0.5 }]],
    ["terms never learned count as zero", { save: { "f:write": [2, 0] } }, 4, [{ id: "f:write", score: 0.25 }]],
    [
      "a term spread over tools splits its share",
      { get: { "a:x": [3, 0], "a:y": [1, 0] } },
      1,
      [
        { id: "a:x", score: 0.75 },
        { id: "a:y", score: 0.25 },
      ],
    ],
    ["a tool that failed (negative weight) is not listed", { save: { "f:write": [2, 0], "f:rm": [-1, 0] } }, 1, [{ id: "f:write", score: 1 }]],
    ["a row with no positive evidence says nothing", { save: { "f:rm": [-1, 0] } }, 1, []],
  ])("%s", (_name, entries, termCount, expected) => {
    expect(scoreQuery(rows(entries), termCount, 0, settings, all)).toEqual(expected);
  });

  it("leaves out what `allowed` refuses (quarantined or removed tools)", () => {
    const learned = rows({ save: { "f:write": [2, 0], "f:gone": [2, 0] } });
    expect(scoreQuery(learned, 1, 0, settings, (id) => id !== "f:gone")).toEqual([{ id: "f:write", score: 0.5 }]);
  });

  it("lets old evidence fade: a term seen twice long ago is less sure", () => {
    const learned = rows({ save: { "f:write": [2, 0] } });
    expect(scoreQuery(learned, 1, 30 * DAY, settings, all)).toEqual([{ id: "f:write", score: 0.5 }]);
  });
});
