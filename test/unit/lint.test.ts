/**
 * The lint rules that keep the layers and promises honest fail on a
 * deliberate violation: the project's own ESLint config, run on code that
 * breaks each rule once.
 */
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const rulesOf = (results: ESLint.LintResult[]) => results.flatMap((r) => r.messages.map((m) => m.ruleId));

describe("lint rules", () => {
  it("flag a floating promise and an async callback where a plain one is expected", async () => {
    const eslint = new ESLint({ ignore: false });
    const rules = rulesOf(await eslint.lintFiles(["test/fixtures/lint/promises.ts"]));
    expect(rules).toEqual(["@typescript-eslint/no-floating-promises", "@typescript-eslint/no-misused-promises"]);
  }, 60_000);

  describe("layers", () => {
    // Without type information: these rules read import paths only, and the files named below do not exist.
    const eslint = new ESLint({
      overrideConfig: {
        languageOptions: { parserOptions: { projectService: false } },
        rules: { "@typescript-eslint/no-floating-promises": "off", "@typescript-eslint/no-misused-promises": "off" },
      },
    });
    const lint = async (filePath: string, code: string) => rulesOf(await eslint.lintText(code, { filePath }));

    it.each([
      ["src/util/example.ts", 'import { DEFAULTS } from "../config/defaults.js";\nexport const d = DEFAULTS;\n'],
      ["src/model/example.ts", 'import type { ToolRegistry } from "../registry/registry.js";\nexport type R = ToolRegistry;\n'],
      ["src/server/example.ts", 'import type { Metatools } from "../app.js";\nexport type M = Metatools;\n'],
      ["src/text/example.ts", 'import { Bm25Ranker } from "../search/bm25.js";\nexport const b = Bm25Ranker;\n'],
      ["src/config/example.ts", 'import { Workspace } from "../codeintel/workspace.js";\nexport const w = Workspace;\n'],
      ["src/scripts/example.ts", 'import { runPath } from "../meta/run-path.js";\nexport const r = runPath;\n'],
    ])("%s may not import from above it", async (file, code) => {
      expect(await lint(file, code)).toContain("no-restricted-imports");
    });

    it.each([
      ["src/cli/commands/example.ts", 'process.stdout.write("x");\n'],
      ["src/backends/example.ts", 'process.stderr.write("x");\n'],
    ])("%s may not write to the terminal but through the printable sinks", async (file, code) => {
      expect(await lint(file, code)).toContain("no-restricted-syntax");
    });

    it.each([
      ["src/util/example.ts", 'import { join } from "node:path";\nexport const j = join;\n'],
      ["src/model/example.ts", 'import type { JsonSchema } from "./tool.js";\nexport type S = JsonSchema;\n'],
      ["src/server/example.ts", 'import type { ToolRecord } from "../model/tool.js";\nexport type T = ToolRecord;\n'],
      ["src/scripts/example.ts", 'import type { ProgramHost } from "../model/program.js";\nexport type H = ProgramHost;\n'],
      [
        "src/config/example.ts",
        'import { isPlainObject } from "../util/data.js";\nimport { DEFAULTS } from "./defaults.js";\nexport const d = [isPlainObject, DEFAULTS];\n',
      ],
    ])("%s may import what its layer allows", async (file, code) => {
      expect(await lint(file, code)).toEqual([]);
    });
  });
});
