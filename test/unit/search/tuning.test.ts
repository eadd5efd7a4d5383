/**
 * search/tuning.ts is one object, and the index cache keys its files by the whole of it: a change to any value, or a
 * value added, means an index kept on disk is built again, never served under the old value.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { IndexCache, indexSalt } from "../../../src/search/index-cache.js";
import { TUNING } from "../../../src/search/tuning.js";
import { tempDir } from "../../helpers/harness.js";

type Path = (string | number)[];

/** Every value of the tuning object, with how to reach it (a Set's members by their place). */
function leaves(value: unknown, path: Path = []): Path[] {
  if (value instanceof Set) return [...value].map((_, i) => [...path, i]);
  if (value && typeof value === "object") return Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]));
  return [path];
}

/** A copy of the tuning object with the value at `path` changed. */
function changed(path: Path): Record<string, unknown> {
  const copy = structuredClone(TUNING) as unknown as Record<string, unknown>;
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) parent = (parent as Record<string, unknown>)[key as string];
  const last = path.at(-1)!;
  if (parent instanceof Set) {
    const members = [...parent] as unknown[];
    parent.delete(members[last as number]);
    parent.add(`${String(members[last as number])}x`);
  } else {
    const record = parent as Record<string, unknown>;
    const old = record[last as string];
    record[last as string] = typeof old === "number" ? old + 0.5 : `${String(old)}x`;
  }
  return copy;
}

describe("the tuning object in the index cache's key", () => {
  const salt = indexSalt("1.0.0");
  const paths = leaves(TUNING);

  it("reaches every value", () => {
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.map((p) => p.join("."))).toEqual(expect.arrayContaining(["fieldBoosts.name", "deprecatedPrior", "fieldRepeatCap", "actionVerbs.stems.0"]));
  });

  it("is the same for the same values, a Set's members in any order", () => {
    const copy = structuredClone(TUNING) as unknown as { actionVerbs: { stems: Set<string> } };
    copy.actionVerbs.stems = new Set([...copy.actionVerbs.stems].reverse());
    expect(indexSalt("1.0.0", copy)).toBe(salt);
  });

  it.each(paths.map((path) => [path.join("."), path]))("changes when %s changes", (_name, path) => {
    expect(indexSalt("1.0.0", changed(path))).not.toBe(salt);
  });

  it("changes when a value is added, with nobody listing it", () => {
    expect(indexSalt("1.0.0", { ...TUNING, newPrior: 0.5 })).not.toBe(salt);
    expect(indexSalt("1.0.0", { ...TUNING, fieldBoosts: { ...TUNING.fieldBoosts, newField: 1 } })).not.toBe(salt);
  });

  it("is what the index cache stamps its files with", () => {
    const cache = new IndexCache(tempDir(), "/project/metatools.json", "1.0.0");
    expect(cache.stamp("k").salt).toBe(createHash("sha256").update(salt).digest("hex"));
    expect(indexSalt("2.0.0")).not.toBe(salt);
  });
});
