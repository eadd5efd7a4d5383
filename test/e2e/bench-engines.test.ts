/**
 * The engines side by side (src/bench/engines.ts): each engine measured in a
 * process of its own over the same small catalog, through the real child,
 * the real peers (MiniSearch and Orama, optional packages the tests
 * install), and the table that sets them against metatools.
 */
import { describe, expect, it } from "vitest";
import { engineTable } from "../../src/bench/engine-table.js";
import { ENGINES, engineBench } from "../../src/bench/engines.js";

describe("the engines side by side", () => {
  it("measures every engine and mode over the same tools, and prints each peer as a multiple of metatools", async () => {
    const lines: string[] = [];
    const rows = await engineBench([300], 30, (line) => lines.push(line));
    expect(lines.filter((l) => l.includes("skipped"))).toEqual([]);
    expect(rows.map(({ engine, mode }) => ({ engine, mode }))).toEqual(ENGINES);
    for (const row of rows) {
      expect(row.tools).toBe(300);
      expect(row.queries).toBe(30);
      expect(row.buildMs).toBeGreaterThan(0);
      expect(row.p50Ms).toBeGreaterThan(0);
      expect(row.p99Ms).toBeGreaterThanOrEqual(row.p50Ms);
    }
    // What an engine holds is weighed: 300 tools' index is more than nothing, and hybrid holds vectors on top of BM25's.
    const of = (engine: string, mode: string) => rows.find((r) => r.engine === engine && r.mode === mode)!;
    expect(of("metatools", "bm25").memoryMb).toBeGreaterThan(0.05);
    expect(of("metatools", "hybrid").memoryMb).toBeGreaterThan(of("metatools", "bm25").memoryMb);
    const table = engineTable(rows);
    const minisearch = table.rows.find((r) => r[1] === "minisearch")!;
    // The peer's p50 over ours, as printed.
    expect(minisearch[9]).toBe(`${(of("minisearch", "bm25").p50Ms / of("metatools", "bm25").p50Ms).toFixed(1)}×`);
    expect(table.rows.find((r) => r[1] === "metatools" && r[2] === "bm25")![11]).toMatch(
      /build ≤ MiniSearch's (met|MISSED); memory ≤ MiniSearch's (met|MISSED)/,
    );
  }, 120_000);
});
