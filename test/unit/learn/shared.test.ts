/** Whose evidence counts for whom (src/learn/shared.ts): agreement among callers, and rows that stay small whatever one caller does. */
import { describe, expect, it } from "vitest";
import { MAX_TOOLS_PER_TERM } from "../../../src/learn/model.js";
import { addShared, importShared, MAX_CONTRIBUTORS, TRUSTED, viewFor, type SharedRow } from "../../../src/learn/shared.js";

const DAY = 86_400_000;
const settings = { halfLifeMs: 30 * DAY };

function teach(row: SharedRow | undefined, who: string, tool: string, times = 1): SharedRow {
  for (let i = 0; i < times; i++) row = addShared(row, who, tool, 1, 0, settings);
  return row!;
}

describe("shared rows", () => {
  it("count another caller's evidence only once enough distinct callers raised the tool, each for at most 4", () => {
    let row = teach(undefined, "mallory", "evil:x", 50);
    expect(viewFor(undefined, row, "bob", 3, 0, settings)).toEqual({});
    expect(viewFor(undefined, row, "bob", 1, 0, settings)).toEqual({ "evil:x": [4, 0] });
    row = teach(teach(row, "carol", "evil:x"), "dave", "evil:x");
    expect(viewFor(undefined, row, "bob", 3, 0, settings)).toEqual({ "evil:x": [6, 0] });
    // A caller's own evidence comes from its own row, not counted twice.
    expect(viewFor({ "evil:x": [1, 0] }, row, "carol", 3, 0, settings)).toEqual({ "evil:x": [6, 0] });
  });

  it("a caller against a shared tool lowers it by at most its floor; a caller's own failures stay its own", () => {
    let row = ["a", "b", "c"].reduce<SharedRow | undefined>((r, who) => teach(r, who, "good:x", 2), undefined)!;
    row = addShared(row, "mallory", "good:x", -10, 0, settings);
    expect(viewFor(undefined, row, "bob", 3, 0, settings)).toEqual({ "good:x": [4, 0] });
  });

  it(`one caller holds at most 6 tools of a row, and a tool at most ${MAX_CONTRIBUTORS} callers; what several agree on stays`, () => {
    let row = ["a", "b", "c"].reduce<SharedRow | undefined>((r, who) => teach(r, who, "good:x"), undefined)!;
    for (let m = 0; m < 6; m++) for (let t = 0; t < 30; t++) row = teach(row, `mallory${m}`, `junk:${m}-${t}`, 3);
    expect(Object.keys(row)).toHaveLength(MAX_TOOLS_PER_TERM);
    expect(row["good:x"]).toBeDefined();
    for (let m = 0; m < 6; m++) expect(Object.values(row).filter((byWho) => `mallory${m}` in byWho).length).toBeLessThanOrEqual(6);
    for (let who = 0; who < 20; who++) row = teach(row, `fan${who}`, "good:x");
    expect(Object.keys(row["good:x"]!)).toHaveLength(MAX_CONTRIBUTORS);
    expect(JSON.stringify(row).length).toBeLessThan(12_000);
  });

  it("an imported file is the operator's: it counts for every caller at once, in full", () => {
    const row = importShared(undefined, { "files:write": [12, 0] }, 0, settings);
    expect(Object.keys(row["files:write"]!)).toEqual([TRUSTED]);
    expect(viewFor(undefined, row, "anyone", 8, 0, settings)).toEqual({ "files:write": [12, 0] });
  });

  it("evidence decays in the shared row as in a caller's own", () => {
    const row = ["a", "b", "c"].reduce<SharedRow | undefined>((r, who) => teach(r, who, "t:x", 2), undefined)!;
    expect(viewFor(undefined, row, "bob", 3, 30 * DAY, settings)).toEqual({ "t:x": [3, 30 * DAY] });
  });
});
