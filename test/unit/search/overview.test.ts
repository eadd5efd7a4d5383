import { describe, expect, it } from "vitest";
import type { ToolRecord } from "../../../src/model/tool.js";
import { isUnsure, mapOf } from "../../../src/search/overview.js";
import type { SignalName } from "../../../src/search/signals/index.js";
import type { SignalList } from "../../../src/search/signals/signal.js";

const record = (namespace: string, name: string, group?: string) =>
  ({ id: `${namespace}:${name}`, namespace, name, ...(group ? { group } : {}) }) as ToolRecord;
const list = (ids: string[], extra: Partial<SignalList> = {}): SignalList => ({ hits: ids.map((id, i) => ({ id, score: 10 - i })), weight: 1, ...extra });
const lists = (entries: [SignalName, SignalList][]) => new Map(entries);

describe("isUnsure", () => {
  it.each([
    [
      "a tool the query names is never a guess",
      lists([
        ["exact", list(["a:x"])],
        ["bm25", list([], { strength: 1 })],
      ]),
      true,
      false,
    ],
    ["no exact word match is a guess", lists([["bm25", list(["a:x"], { strength: 50 })]]), true, true],
    [
      "no word matched at all is a guess",
      lists([
        ["bm25", list([])],
        ["semantic", list(["a:x"])],
      ]),
      false,
      true,
    ],
    [
      "weak words the signals disagree on",
      lists([
        ["bm25", list(["a:x"], { strength: 5 })],
        ["semantic", list(["a:y"])],
      ]),
      false,
      true,
    ],
    [
      "weak words the signals agree on",
      lists([
        ["bm25", list(["a:x"], { strength: 5 })],
        ["semantic", list(["a:x"])],
      ]),
      false,
      false,
    ],
    [
      "strong words, whatever the meaning says",
      lists([
        ["bm25", list(["a:x"], { strength: 500 })],
        ["semantic", list(["a:y"])],
      ]),
      false,
      false,
    ],
    ["words alone (bm25 mode)", lists([["bm25", list(["a:x"], { strength: 1 })]]), false, false],
  ] as const)("%s", (_, given, relaxed, unsure) => {
    expect(isUnsure(given, relaxed)).toBe(unsure);
  });
});

describe("mapOf", () => {
  const tools = {
    memory: ["create_entities", "add_observations", "delete_entities", "read_graph", "search_nodes", "open_nodes"].map((n) => record("memory", n)),
    fs: Array.from({ length: 200 }, (_, i) => record("fs", `tool_with_a_long_name_${String(i).padStart(3, "0")}`)),
    api: [record("api", "weather_now", "weather"), record("api", "forecast", "weather"), record("api", "send", "mail")],
  } as Record<string, ToolRecord[]>;
  const toolsOf = (namespace: string) => tools[namespace] ?? [];

  it("names the places the first hits fall in, best first, each with its tools: those among the hits first, then the rest by name", () => {
    const hits = [record("memory", "search_nodes"), record("fs", "tool_with_a_long_name_007"), record("memory", "open_nodes")];
    const map = mapOf(hits, toolsOf);
    expect(map.map((p) => p.namespace)).toEqual(["memory", "fs"]);
    expect(map[0]!.tools).toEqual(["search_nodes", "open_nodes", "add_observations", "create_entities", "delete_entities", "read_graph"]);
    expect(map[0]!.more).toBe(0);
  });

  it("keeps to its budget however large a place is, and says how many more it has", () => {
    const map = mapOf([record("fs", "tool_with_a_long_name_100"), record("memory", "read_graph")], toolsOf);
    const names = map.flatMap((p) => p.tools).join(", ");
    expect(names.length).toBeLessThan(800);
    const fs = map.find((p) => p.namespace === "fs")!;
    expect(fs.tools[0]).toBe("tool_with_a_long_name_100");
    expect(fs.more).toBe(200 - fs.tools.length);
    expect(map.find((p) => p.namespace === "memory")!.tools.length).toBeGreaterThan(0);
  });

  it("inside one namespace, a group is a place of its own; a tool the caller may not see is never named", () => {
    const map = mapOf([record("api", "forecast", "weather"), record("api", "send", "mail")], toolsOf, (id) => id !== "api:weather_now");
    expect(map).toEqual([
      { namespace: "api", group: "weather", tools: ["forecast"], more: 0, ids: ["api:forecast"] },
      { namespace: "api", group: "mail", tools: ["send"], more: 0, ids: ["api:send"] },
    ]);
  });
});
