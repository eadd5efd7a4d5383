/** The exact-name matcher, table by table: spellings, identifiers in sentences, generic names, namespaces. */
import { describe, expect, it } from "vitest";
import type { ToolRecord } from "../../../src/model/tool.js";
import { ExactNames, nameWords } from "../../../src/search/exact.js";
import { toolRecord } from "../../helpers/records.js";

function record(namespace: string, name: string, title?: string): ToolRecord {
  return toolRecord(namespace, name, { title });
}

const names = new ExactNames();
names.replaceNamespace("files", [record("files", "read_text_file"), record("files", "list_directory"), record("files", "search")]);
names.replaceNamespace("jobs", [record("jobs", "search_jobs"), ...["a", "b", "c", "d"].map((n) => record("jobs", `${n}_get_info`, "get_info"))]);

describe("nameWords", () => {
  it.each([
    ["mcp__files__readTextFile", ["mcp", "files", "read", "text", "file"]],
    ["HTTPServer2Go", ["http", "server", "2", "go"]],
    ["x2y2 GET", ["x", "2", "y", "2", "get"]],
    ["`power_modulo`", ["power", "modulo"]],
  ])("%s", (text, words) => {
    expect(nameWords(text)).toEqual(words);
  });
});

describe("ExactNames.match", () => {
  it.each([
    ["read text file", ["files:read_text_file"]],
    ["files__read_text_file", ["files:read_text_file"]],
    ["use files:read_text_file on a.md", ["files:read_text_file"]],
    ["search", ["files:search"]],
    ["files:search", ["files:search"]],
    ["search jobs in Paris", []],
    ["run search_jobs for Paris", ["jobs:search_jobs"]],
    ["now list directory contents", []],
    ["get_info", ["jobs:a_get_info", "jobs:b_get_info", "jobs:c_get_info", "jobs:d_get_info"]],
    ["call get_info for the user", []],
  ])("%s → %j", (query, expected) => {
    expect(names.match(query)).toEqual(expected);
  });

  it("a namespace replaced is forgotten", () => {
    const local = new ExactNames();
    local.replaceNamespace("files", [record("files", "read_text_file")]);
    local.replaceNamespace("files", []);
    expect(local.match("read_text_file")).toEqual([]);
  });
});
