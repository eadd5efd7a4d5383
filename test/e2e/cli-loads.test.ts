/**
 * What a CLI search evaluates. The command is one CommonJS bundle in which
 * esbuild evaluates a module when a module that imports it statically is
 * evaluated, and a module reached by import() only when that import runs.
 * So what the search command runs is the static closure of the entry and
 * of the command's module, computed here from the shipped bundle's own
 * options: metatools' code and what ranking needs, not the MCP SDK's
 * client or server (their code and zod schemas are most of the start-up
 * cost), which only connecting and serving need; and ajv, yaml and RE2JS,
 * which the bundle leaves out, stay unread until a call needs them.
 */
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleOptions } from "../../scripts/bundle-options.mjs";

let metafile: Metafile;

beforeAll(async () => {
  ({ metafile } = (await build({ ...bundleOptions, write: false, metafile: true, logLevel: "silent" })) as { metafile: Metafile });
}, 60_000);

/** The modules evaluated once `entries` are: their static imports and requires, transitively. */
function evaluatedWith(...entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length) {
    const path = todo.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    for (const i of metafile.inputs[path]?.imports ?? []) if (!i.external && (i.kind === "import-statement" || i.kind === "require-call")) todo.push(i.path);
  }
  return seen;
}

const SDK_CLIENT_OR_SERVER =
  /node_modules\/@modelcontextprotocol\/(client|server)\/|node_modules\/@modelcontextprotocol\/sdk\/dist\/esm\/(client|server\/(index|mcp|stdio))/;
const LEFT_OUT = /node_modules\/(ajv|ajv-formats|yaml|re2js)\//;

describe("a CLI search", () => {
  it("evaluates neither the MCP client nor the MCP server code; connecting (backends/mcp.js) does", () => {
    const search = evaluatedWith("dist/cli/main.js", "dist/cli/commands/search.js");
    expect(search.has("dist/search/engine.js")).toBe(true);
    expect([...search].filter((path) => SDK_CLIENT_OR_SERVER.test(path))).toEqual([]);
    expect(search.has("dist/backends/mcp.js")).toBe(false);
    const connecting = evaluatedWith("dist/backends/mcp.js");
    expect([...connecting].some((path) => SDK_CLIENT_OR_SERVER.test(path))).toBe(true);
  });

  it("bundles none of ajv, yaml and RE2JS: they are read at their first use", () => {
    expect(Object.keys(metafile.inputs).filter((path) => LEFT_OUT.test(path))).toEqual([]);
    // The bundle is what serve runs too: validation still comes with it.
    expect(metafile.inputs["dist/exec/validator.js"]).toBeDefined();
  });
});
