import { describe, expect, it } from "vitest";
import { mismatch, transcriptSteps } from "../../helpers/transcript.js";

describe("doc transcripts", () => {
  const doc = ["# T", "<!-- transcript: one (a test) -->", "```text", "$ a --x", "line 1", "line 2", "", "$ b &", "$ c", "x", "…", "z", "```", ""].join("\n");

  it("are read as commands and the lines each prints", () => {
    expect(transcriptSteps(doc, "one")).toEqual([
      { command: "a --x", shown: ["line 1", "line 2"] },
      { command: "b &", shown: [] },
      { command: "c", shown: ["x", "…", "z"] },
    ]);
    expect(() => transcriptSteps(doc, "two")).toThrow(/no transcript named two/);
  });

  it("match whole, or around an elision, and say where they depart", () => {
    expect(mismatch(["line 1", "line 2"], ["line 1", "line 2", ""])).toBeUndefined();
    expect(mismatch(["line 1", "line 2"], ["line 1", "line 2", "line 3"])).toMatch(/not the one shown/);
    expect(mismatch(["x", "…", "z"], ["x", "y", "y", "z"])).toBeUndefined();
    expect(mismatch(["x", "…", "z"], ["x", "z"])).toBeUndefined();
    expect(mismatch(["x", "…", "z"], ["w", "z"])).toMatch(/does not begin with/);
    expect(mismatch(["x", "…", "z"], ["x", "y"])).toMatch(/does not end with/);
    expect(mismatch(["x", "…", "m", "…", "z"], ["x", "a", "z"])).toMatch(/cannot find/);
    expect(mismatch(["x", "…", "x"], ["x"])).toMatch(/does not end with/);
  });
});
