/**
 * disclosure/guard.ts: page sizes per mode (OutputGuard.fromInput, pageSize, page), paged responses with their
 * overflow block under a byte budget (respond), and per-file counts (distribution, capDistribution, byFileFields).
 */
import { describe, expect, it } from "vitest";
import { jsonBytes } from "../../../src/disclosure/budget.js";
import { byFileFields, capDistribution, distribution, OutputGuard } from "../../../src/disclosure/guard.js";
import type { Distribution, Narrowing, PageInput } from "../../../src/disclosure/guard.js";
import type { NextCall } from "../../../src/disclosure/guidance.js";

describe("OutputGuard paging", () => {
  it.each<[string, PageInput, { focused: boolean; offset: number; size: number }]>([
    ["the default: exploring, the cap", {}, { focused: false, offset: 0, size: 5 }],
    ["exploring said outright", { detail_level: "exploring" }, { focused: false, offset: 0, size: 5 }],
    ["an explicit limit while exploring", { limit: 3 }, { focused: false, offset: 0, size: 3 }],
    ["focused: the focused page", { detail_level: "full" }, { focused: true, offset: 0, size: 50 }],
    ["focused with a limit", { detail_level: "full", limit: 7, offset: 20 }, { focused: true, offset: 20, size: 7 }],
    ["a zero limit is kept, not defaulted", { limit: 0 }, { focused: false, offset: 0, size: 0 }],
  ])("%s", (_name, input, expected) => {
    const guard = OutputGuard.fromInput(input);
    expect({ focused: guard.focused, offset: guard.offset, size: guard.pageSize(5) }).toEqual(expected);
    expect(guard.includeBodies).toBe(expected.focused);
  });

  const items = Array.from({ length: 12 }, (_, i) => i);
  it.each<[PageInput, number[]]>([
    [{}, [0, 1, 2, 3, 4]],
    [{ offset: 10 }, [10, 11]],
    [{ offset: 12 }, []],
    [{ offset: 99 }, []],
    [{ limit: 2, offset: 3 }, [3, 4]],
    [{ detail_level: "full" }, items],
    [{ detail_level: "full", offset: 11 }, [11]],
  ])("page %j", (input, expected) => {
    expect(OutputGuard.fromInput(input).page(items, 5)).toEqual(expected);
  });
});

describe("OutputGuard.respond", () => {
  interface Hit {
    n: number;
    file: string;
  }
  const items: Hit[] = Array.from({ length: 12 }, (_, n) => ({ n, file: n % 3 === 0 ? "a.ts" : "b.ts" }));
  const render = (shown: readonly Hit[]) => ({ hits: shown.map((h) => h.n) });
  const pageCall = (offset: number, limit: number): NextCall => ({ tool: "run_tool", arguments: { offset, limit } });
  const filter: NextCall = { tool: "search_tools", arguments: { query: "x", kind: "function" } };
  interface Request {
    items: readonly Hit[];
    cap: number;
    budget: number;
    render: (shown: readonly Hit[]) => Record<string, unknown>;
    narrowings: (byFile: Distribution | undefined) => Narrowing[];
    pageCall: (offset: number, limit: number) => NextCall;
    fileOf?: (item: Hit) => string;
  }
  const request = (extra: Partial<Request> = {}): Request => ({
    items,
    cap: 5,
    budget: 10_000,
    render,
    narrowings: () => [],
    pageCall,
    ...extra,
  });

  it("adds only the total when everything is shown", () => {
    expect(OutputGuard.fromInput({ detail_level: "full" }).respond(request())).toEqual({ hits: items.map((h) => h.n), total: 12 });
    expect(OutputGuard.fromInput({ offset: 10 }).respond(request())).toEqual({ hits: [10, 11], total: 12 });
    expect(OutputGuard.fromInput({ offset: 50 }).respond(request())).toEqual({ hits: [], total: 12 });
    expect(OutputGuard.fromInput({}).respond(request({ items: [] }))).toEqual({ hits: [], total: 0 });
  });

  it("explains an exploring overflow: narrowings first, then the next page, and by_file over the full set", () => {
    const seen: (Distribution | undefined)[] = [];
    const response = OutputGuard.fromInput({}).respond(
      request({
        fileOf: (h) => h.file,
        narrowings: (byFile) => {
          seen.push(byFile);
          return [{ label: "filter by kind", call: filter }];
        },
      }),
    );
    expect(response).toEqual({
      hits: [0, 1, 2, 3, 4],
      total: 12,
      overflow: {
        shown: 5,
        total: 12,
        hint: [
          "Showing 1-5 of 12. To narrow down:",
          '• filter by kind: search_tools({query: "x", kind: "function"})',
          "• next page: run_tool({offset: 5, limit: 5})",
        ].join("\n"),
        next: filter,
        by_file: [
          { file: "b.ts", count: 8 },
          { file: "a.ts", count: 4 },
        ],
      },
    });
    expect(seen).toEqual([
      {
        entries: [
          { key: "b.ts", count: 8 },
          { key: "a.ts", count: 4 },
        ],
        omitted: 0,
      },
    ]);
  });

  it("gives next_offset in focused mode, and the next page as `next` when there is nothing else", () => {
    const response = OutputGuard.fromInput({ detail_level: "full", limit: 4, offset: 2 }).respond(request());
    expect(response).toEqual({
      hits: [2, 3, 4, 5],
      total: 12,
      overflow: {
        shown: 4,
        total: 12,
        hint: "Showing 3-6 of 12. To narrow down:\n• next page: run_tool({offset: 6, limit: 4})",
        next: pageCall(6, 4),
        next_offset: 6,
      },
    });
  });

  it("asks for narrowings only on overflow, and once however many sizes the budget tries", () => {
    let calls = 0;
    let renders = 0;
    const narrowings = () => {
      calls++;
      return [];
    };
    const counted = (shown: readonly Hit[]) => {
      renders++;
      return render(shown);
    };
    OutputGuard.fromInput({ detail_level: "full" }).respond(request({ narrowings }));
    expect(calls).toBe(0);
    OutputGuard.fromInput({ limit: 4 }).respond(request({ narrowings, render: counted, budget: 100 }));
    expect(renders).toBeGreaterThan(2);
    expect(calls).toBe(1);
  });

  it("fits the byte budget: exactly at the size of the full page, and one byte under it", () => {
    // Hits of 100 bytes each: dropping one saves more than the note the squeeze adds to the hint.
    const wide = (shown: readonly Hit[]) => ({ hits: shown.map((h) => String(h.n).repeat(100)) });
    const guard = OutputGuard.fromInput({ limit: 4 });
    const full = guard.respond(request({ render: wide }));
    const size = jsonBytes(full);
    expect(size).toBe(621);
    expect(guard.respond(request({ render: wide, budget: size }))).toEqual(full);
    const squeezed = guard.respond(request({ render: wide, budget: size - 1 })) as { hits: string[]; overflow: { shown: number; hint: string } };
    expect(squeezed.hits).toEqual(["0", "1", "2"].map((d) => d.repeat(100)));
    expect(squeezed.overflow.shown).toBe(3);
    expect(squeezed.overflow.hint).toBe(
      "Showing 1-3 of 12 (the response byte budget cut the page short). To narrow down:\n• next page: run_tool({offset: 3, limit: 4})",
    );
    expect(jsonBytes(squeezed)).toBe(564);
  });

  it("when even an empty page is over the budget, sends the whole page if it is the smaller reply", () => {
    const guard = OutputGuard.fromInput({ detail_level: "full", offset: 2 });
    const response = guard.respond(request({ budget: 10 }));
    // A cut page carries its overflow guidance, larger here than the twelve small items themselves.
    expect(response.overflow).toBeUndefined();
    expect(response.total).toBe(12);
    expect((response.hits as unknown[]).length).toBe(10);
  });

  it("counts files past the cap of 15 as by_file_overflow", () => {
    const many = Array.from({ length: 40 }, (_, n) => ({ n, file: `f${String(n % 20).padStart(2, "0")}.ts` }));
    const response = OutputGuard.fromInput({}).respond(request({ items: many, fileOf: (h) => h.file })) as { overflow: Record<string, unknown> };
    expect(response.overflow.by_file).toEqual(Array.from({ length: 15 }, (_, i) => ({ file: `f${String(i).padStart(2, "0")}.ts`, count: 2 })));
    expect(response.overflow.by_file_overflow).toBe(5);
  });
});

describe("distribution", () => {
  it.each<[string, string[], number | undefined, Distribution]>([
    ["nothing", [], undefined, { entries: [], omitted: 0 }],
    [
      "most first",
      ["b", "a", "b"],
      undefined,
      {
        entries: [
          { key: "b", count: 2 },
          { key: "a", count: 1 },
        ],
        omitted: 0,
      },
    ],
    [
      "ties by name (code unit order)",
      ["b", "a", "B", "é"],
      undefined,
      {
        entries: [
          { key: "B", count: 1 },
          { key: "a", count: 1 },
          { key: "b", count: 1 },
          { key: "é", count: 1 },
        ],
        omitted: 0,
      },
    ],
    [
      "capped, the rest counted",
      ["c", "a", "b", "c", "d"],
      2,
      {
        entries: [
          { key: "c", count: 2 },
          { key: "a", count: 1 },
        ],
        omitted: 2,
      },
    ],
    [
      "exactly at the cap",
      ["a", "b"],
      2,
      {
        entries: [
          { key: "a", count: 1 },
          { key: "b", count: 1 },
        ],
        omitted: 0,
      },
    ],
    ["a zero cap", ["a", "b"], 0, { entries: [], omitted: 2 }],
    [
      "odd keys are kept as they are",
      ["", "../x", "a/*", ""],
      undefined,
      {
        entries: [
          { key: "", count: 2 },
          { key: "../x", count: 1 },
          { key: "a/*", count: 1 },
        ],
        omitted: 0,
      },
    ],
  ])("%s", (_name, keys, cap, expected) => {
    expect(cap === undefined ? distribution(keys) : distribution(keys, cap)).toEqual(expected);
  });

  it("caps at 15 by default, and takes any iterable", () => {
    const keys = new Set(Array.from({ length: 16 }, (_, i) => `k${String(i).padStart(2, "0")}`));
    const d = distribution(keys.values());
    expect(d.entries.map((e) => e.key)).toEqual([...keys].slice(0, 15));
    expect(d.omitted).toBe(1);
  });
});

describe("capDistribution and byFileFields", () => {
  it.each<[number[], number, { entries: number[]; omitted: number }]>([
    [[], 3, { entries: [], omitted: 0 }],
    [[1, 2, 3], 3, { entries: [1, 2, 3], omitted: 0 }],
    [[1, 2, 3, 4], 3, { entries: [1, 2, 3], omitted: 1 }],
    [[1, 2], 0, { entries: [], omitted: 2 }],
  ])("capDistribution(%j, %i)", (entries, cap, expected) => {
    expect(capDistribution(entries, cap)).toEqual(expected);
  });

  it.each<[Distribution, Record<string, unknown>]>([
    [{ entries: [], omitted: 0 }, { by_file: [] }],
    [{ entries: [{ key: "a.ts", count: 3 }], omitted: 0 }, { by_file: [{ file: "a.ts", count: 3 }] }],
    [
      { entries: [{ key: "a.ts", count: 3 }], omitted: 4 },
      { by_file: [{ file: "a.ts", count: 3 }], by_file_overflow: 4 },
    ],
  ])("byFileFields(%j)", (d, expected) => {
    expect(byFileFields(d)).toStrictEqual(expected);
  });
});
