import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { generatedFiles } from "../../../src/docs/generated.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const files = await generatedFiles();

describe("generated files are up to date (npm run generate rewrites them)", () => {
  it.each(files.map((f) => [f.path, f.content] as const))("%s", (path, content) => {
    const file = `${ROOT}${path}`;
    expect(existsSync(file), `${path} is missing: run npm run generate`).toBe(true);
    expect(readFileSync(file, "utf8"), `${path} is stale: run npm run generate and commit the result`).toBe(content);
  });

  it("the references name every tool and every config section", () => {
    const tools = files.find((f) => f.path === "docs/reference/tools.md")!.content;
    for (const id of [
      "search_tools",
      "describe_tool",
      "run_tool",
      "code:tree",
      "code:symbols",
      "code:references",
      "code:grep",
      "code:read_file",
      "metatools:read_output",
    ])
      expect(tools).toContain(`### \`${id}\``);
    expect(tools).toMatch(/\| `query` \*\*\(required\)\*\* \| string \|/);
    const config = files.find((f) => f.path === "docs/reference/config.md")!.content;
    for (const section of ["search", "security", "http", "budgets", "timeouts", "code", "store", "cache", "outputs", "run"])
      expect(config).toContain(`### \`metatools.${section}\``);
    expect(config).toMatch(/\| `command` \| string \| \*\*Required\.\*\* Executable to spawn/);
    expect(config).toContain('`search.embedder (type: "static").vectors`');
  });
});
