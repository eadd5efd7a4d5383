/**
 * The calls a reply suggests, as command lines a person pastes: each is read
 * back by a real shell and then by the command's own flag parser, and must
 * give the meta-tool the very arguments the call had.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandLine, shellWord, withCommandLines } from "../../../src/cli/command-line.js";
import { describeRequest } from "../../../src/cli/commands/describe.js";
import { runRequest } from "../../../src/cli/commands/run.js";
import { searchRequest } from "../../../src/cli/commands/search.js";
import { formatCall, type NextCall } from "../../../src/disclosure/guidance.js";
import { READ_OUTPUT_ID } from "../../../src/disclosure/outputs.js";
import { READ_RESOURCE_ID } from "../../../src/disclosure/resource-links.js";
import { META_TOOLS } from "../../../src/meta/index.js";

const PARSERS: Record<string, (argv: string[]) => { args: Record<string, unknown> }> = {
  search: searchRequest,
  describe: describeRequest,
  run: runRequest,
};

/** The words a POSIX shell makes of a command line. */
function shellWords(line: string): string[] {
  const out = spawnSync("sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" });
  expect(out.status).toBe(0);
  return out.stdout.split("\0").slice(0, -1);
}

/** What the command line gives the meta-tool, read as the CLI reads it. */
function readBack(line: string): NextCall {
  const [program, command, ...argv] = shellWords(line);
  expect(program).toBe("metatools");
  const tool = ({ search: "search_tools", describe: "describe_tool", run: "run_tool" } as const)[command as "search"];
  return { tool, arguments: PARSERS[command!]!(argv).args };
}

const run = (tool_id: string, args: Record<string, unknown>, more: Record<string, unknown> = {}): NextCall => ({
  tool: "run_tool",
  arguments: { tool_id, args, ...more },
});

// [what, the call, what the command gives back when the CLI spells it another way (defaults, one-element lists)]
const CALLS: [string, NextCall, Record<string, unknown>?][] = [
  ["a search scoped to a namespace", { tool: "search_tools", arguments: { query: "tiny image", limit: 2, namespace: "everything" } }],
  ["the next page", { tool: "search_tools", arguments: { query: "tiny image", limit: 2, offset: 2 } }],
  ["an empty query", { tool: "search_tools", arguments: { query: "", namespace: "filesystem" } }],
  [
    "every search option, quotes and shell characters",
    {
      tool: "search_tools",
      arguments: { query: `it's "x" $HOME \`id\` ; |`, limit: 3, offset: 5, namespace: ["a", "b"], tags: ["git", "write"], mode: "bm25" },
    },
  ],
  ["a query that starts with a dash", { tool: "search_tools", arguments: { query: "--force push" } }],
  ["one namespace in a list", { tool: "search_tools", arguments: { query: "x", namespace: ["fs"] } }, { query: "x", namespace: "fs" }],
  ["describe one tool", { tool: "describe_tool", arguments: { tool_id: "fs:read_text_file" } }],
  ["describe in full", { tool: "describe_tool", arguments: { tool_id: "everything:echo", detail_level: "full", examples_max: 3 } }],
  ["describe several", { tool: "describe_tool", arguments: { tool_ids: ["a:b", "c:d"], detail_level: "summary" } }],
  ["describe a list of one", { tool: "describe_tool", arguments: { tool_ids: ["a:b"] } }, { tool_id: "a:b" }],
  ["run with arguments", run("fs:read_text_file", { path: "/tmp/x y/it's.txt" })],
  ["run without arguments", run("everything:get-tiny-image", {})],
  ["run with no args field", { tool: "run_tool", arguments: { tool_id: "everything:get-tiny-image" } }, { tool_id: "everything:get-tiny-image", args: {} }],
  ["run again, fresh and with more time", run("github:search", { q: "a'b", n: [1, 2], deep: { ok: true } }, { cache: "refresh", timeout_ms: 60000 })],
  ["read a handle's lines", run(READ_OUTPUT_ID, { handle: "@out_3kq9ZJ0aLx2mQ1vT", start_line: 201, end_line: 400 })],
  ["read a handle from a column", run(READ_OUTPUT_ID, { handle: "@out_3kq9ZJ0aLx2mQ1vT", start_line: 3, start_column: 5001 })],
  ["read a handle's JSON path", run(READ_OUTPUT_ID, { handle: "@out_3kq9ZJ0aLx2mQ1vT", json_path: "$.items[0:10].name" })],
  ["grep a handle", run(READ_OUTPUT_ID, { handle: "@out_3kq9ZJ0aLx2mQ1vT", grep: "error|warn (\\d+)" })],
  ["a kept image", run(READ_OUTPUT_ID, { handle: "@out_3kq9ZJ0aLx2mQ1vT" })],
  ["a resource link", run(READ_RESOURCE_ID, { uri: "metatools://everything/demo://resource/static/document/architecture.md" })],
];

describe("a meta-tool call as a command line", () => {
  it.each(CALLS)("%s: the shell and the command read back the same arguments", (_, call, expected) => {
    const line = commandLine(call)!;
    expect(line).toMatch(/^metatools (search|describe|run) /);
    expect(readBack(line)).toEqual({ tool: call.tool, arguments: expected ?? call.arguments });
  });

  it.each(CALLS)("%s: formatCall's form in a hint becomes that line", (_, call) => {
    const text = `Before: ${formatCall(call)}; and after (${formatCall(call)}).`;
    expect(withCommandLines(text)).toBe(`Before: ${commandLine(call)}; and after (${commandLine(call)}).`);
  });

  it("writes the lines a person expects", () => {
    expect(commandLine(run("fs:read_text_file", { path: "x" }))).toBe(`metatools run fs:read_text_file --args '{"path":"x"}'`);
    expect(commandLine({ tool: "describe_tool", arguments: { tool_id: "fs:read_text_file" } })).toBe("metatools describe fs:read_text_file");
    expect(commandLine({ tool: "search_tools", arguments: { query: "tiny image", limit: 2, offset: 2 } })).toBe(
      "metatools search 'tiny image' --limit 2 --offset 2",
    );
    expect(commandLine({ tool: "search_tools", arguments: { query: "-x" } })).toBe("metatools search -- -x");
  });

  it("starts each line as the user launched metatools: through npx, or from the PATH", () => {
    process.env.npm_command = "exec";
    try {
      expect(commandLine({ tool: "describe_tool", arguments: { tool_id: "fs:read_text_file" } })).toBe("npx metatools describe fs:read_text_file");
    } finally {
      delete process.env.npm_command;
    }
    expect(commandLine({ tool: "describe_tool", arguments: { tool_id: "fs:read_text_file" } })).toBe("metatools describe fs:read_text_file");
  });

  it("has a flag for every argument of every meta-tool", () => {
    const sample: Record<string, unknown> = {
      query: "q",
      limit: 3,
      offset: 1,
      namespace: "fs",
      tags: ["t"],
      mode: "hybrid",
      tool_id: "a:b",
      tool_ids: ["a:b"],
      detail_level: "full",
      examples_max: 1,
      format: "typescript",
      args: { x: 1 },
      cache: "bypass",
      timeout_ms: 5,
    };
    const base: Record<string, Record<string, unknown>> = { search_tools: { query: "q" }, describe_tool: { tool_id: "a:b" }, run_tool: { tool_id: "a:b" } };
    for (const tool of META_TOOLS) {
      for (const name of Object.keys(tool.inputSchema.properties ?? {})) {
        expect(name in sample, `${tool.name}.${name} needs a sample here and a flag in command-line.ts`).toBe(true);
        // tool_ids stands instead of tool_id.
        const { tool_id: _, ...rest } = base[tool.name]!;
        const call = { tool: tool.name, arguments: { ...(name === "tool_ids" ? rest : base[tool.name]), [name]: sample[name] } };
        const line = commandLine(call);
        expect(line, `${tool.name}.${name}`).toBeDefined();
        expect(readBack(line!).arguments).toMatchObject(name === "tool_ids" ? { tool_id: "a:b" } : { [name]: sample[name] });
      }
    }
  });

  it("leaves alone what it cannot write as a command, and text that only looks like a call", () => {
    expect(commandLine({ tool: "search_tools", arguments: { query: "x", color: "red" } })).toBeUndefined();
    expect(commandLine({ tool: "search_tools", arguments: { query: "x", tags: ["a,b"] } })).toBeUndefined();
    for (const text of [
      'search_tools({query: "x", color: "red"})',
      "run_tool({tool_id: broken})",
      'run_tool({tool_id: "a:b", args: {"x": [1, 2}})',
      'describe_tool({tool_id: "a:b"',
      "no call at all: search_tools",
    ])
      expect(withCommandLines(text)).toBe(text);
  });

  it.each([
    ["plain", "plain"],
    ["ns:tool-name_1", "ns:tool-name_1"],
    ["@out_3kq9", "@out_3kq9"],
    ["", "''"],
    ["two words", "'two words'"],
    ["it's", "'it'\\''s'"],
    ["$HOME", "'$HOME'"],
    ["a\nb", "'a\nb'"],
  ])("quotes %j for the shell as %s", (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
    expect(shellWords(`${quoted} end`)).toEqual([word, "end"]);
  });
});
