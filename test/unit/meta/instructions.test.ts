import { describe, expect, it } from "vitest";
import { instructions, namespacesLine, namespaceWords, splitName, splitNameByPattern } from "../../../src/meta/instructions.js";
import type { MetaServices } from "../../../src/meta/services.js";

/** Services holding `namespaces`, each with its tools' names; every backend ready. */
function servicesWith(namespaces: Record<string, string[]>): MetaServices {
  return {
    registry: {
      get: () => undefined,
      namespaces: () => Object.entries(namespaces).map(([namespace, names]) => ({ namespace, count: names.length })),
      namespaceRecords: (namespace: string) => (namespaces[namespace] ?? []).map((name) => ({ name })),
    },
    backends: { states: () => [] },
  } as unknown as MetaServices;
}

describe("namespaceWords", () => {
  it.each([
    [
      "fs",
      ["read_file", "read_multiple_files", "write_file", "list_directory", "list_allowed_directories", "directory_tree"],
      ["directory", "file", "list", "read"],
    ],
    ["github", ["createIssue", "listIssues", "getPullRequest", "createPullRequest"], ["create", "issue", "pull", "request"]],
    // The namespace's own name, empty words and numbers say nothing.
    ["weather", ["get_weather", "get_forecast_v2", "weather_alerts"], ["alert", "forecast"]],
    ["x", [], []],
  ])("%s: %j → %j", (namespace, names, words) => {
    expect(namespaceWords(namespace, names)).toEqual(words);
  });

  it("keeps words that only look plural", () => {
    expect(namespaceWords("n", ["get_status", "set_address", "run_analysis"])).toEqual(["address", "analysis", "run", "status"]);
  });
});

describe("instructions", () => {
  it("names each namespace with its count and words", () => {
    const text = instructions(servicesWith({ fs: ["read_file", "write_file"], weather: ["get_forecast"] }));
    expect(text).toContain("Namespaces (tools): fs (2): file, read, write; weather (1): forecast.");
  });

  it("stays within its budget however many namespaces there are, and counts the rest", () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`server${i}`, [`create_widget_${i}`, `delete_gadget_${i}`, `list_sprockets_${i}`]]));
    const line = instructions(servicesWith(many))
      .split("\n")
      .find((l) => l.startsWith("Namespaces"))!;
    expect(line.length).toBeLessThan(1600);
    expect(line).toMatch(/…\d+ more \(search_tools finds their tools\)\.$/);
    const named = line.split("; ").length - 1;
    expect(Number(/…(\d+) more/.exec(line)![1]) + named).toBe(200);
  });

  it("counts a namespace's words once per tool list: the same list is not read again, a new one is", () => {
    let reads = 0;
    let records = [{ name: "read_file" }, { name: "write_file" }];
    const services = {
      registry: {
        get: () => undefined,
        namespaces: () => [{ namespace: "fs", count: records.length }],
        namespaceRecords: () => records,
      },
      backends: { states: () => [] },
    } as unknown as MetaServices;
    const counted = (list: { name: string }[]) =>
      list.map((r) => ({
        get name() {
          reads++;
          return r.name;
        },
      }));
    records = counted(records);
    expect(namespacesLine(services)).toBe("fs (2): file, read, write");
    const once = reads;
    expect(namespacesLine(services)).toBe("fs (2): file, read, write");
    expect(reads).toBe(once);
    // The registry replaces a namespace's list when it changes: the new list is counted.
    records = counted([{ name: "list_directory" }]);
    expect(namespacesLine(services)).toBe("fs (1): directory, list");
  });
});

describe("a tool name's words", () => {
  it("are split by hand in ASCII exactly as the patterns split them", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pieces = ["read", "File", "HTML", "x", "2", "_", "-", ".", "aB", "ID", "Kä", "/", " "];
    for (let n = 0; n < 1000; n++) {
      const name = Array.from({ length: 1 + (next() % 8) }, () => pieces[next() % pieces.length]).join("");
      expect(splitName(name).filter(Boolean), name).toEqual(splitNameByPattern(name).filter(Boolean));
    }
    expect(splitName("readHTMLFile_v2")).toEqual(["read", "htmlfile", "v2"]);
  });
});
