/**
 * One source of defaults (src/config/defaults.ts): the resolver applies
 * them, and every description of a field with a constant default quotes it,
 * so the JSON Schema, the generated reference and the guide cannot disagree
 * with what runs.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../src/config/defaults.js";
import { parseConfig } from "../../../src/config/load.js";
import { shippedSchemas } from "../../../src/docs/generated.js";
import { configurationWithDefaults } from "../../../src/docs/defaults-doc.js";

type Schema = { properties?: Record<string, Schema>; description?: string; anyOf?: Schema[] };

const configSchema = shippedSchemas().find((s) => s.path === "schema/config.schema.json")!.schema as Schema;
const metatools = configSchema.properties!.metatools!;

/** Every constant default with its path: `search.defaultLimit` → 5. */
function leaves(node: unknown, path: string[] = []): [string, unknown][] {
  if (node && typeof node === "object" && !Array.isArray(node)) return Object.entries(node).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [[path.join("."), node]];
}

function field(path: string): Schema | undefined {
  let node: Schema | undefined = metatools;
  for (const key of path.split(".")) node = node?.properties?.[key] ?? node?.anyOf?.find((s) => s.properties?.[key])?.properties?.[key];
  return node;
}

// The semantic weight's default is the embedder's own; DEFAULTS holds the one for embedders that name none.
const documented = leaves(DEFAULTS).filter(([path, value]) => !Array.isArray(value) && path !== "search.fusion.semanticWeight" && field(path));

describe("DEFAULTS", () => {
  it("covers the config's fields", () => {
    expect(documented.length).toBeGreaterThan(35);
  });

  it.each(documented)("the description of %s quotes its default %j", (path, value) => {
    expect(field(path)!.description ?? "").toMatch(new RegExp(`Default \`?${String(value).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`));
  });

  it.each([
    ["search.defaultLimit", (c: ReturnType<typeof parseConfig>) => c.search.defaultLimit],
    ["budgets.inlineBytes", (c: ReturnType<typeof parseConfig>) => c.budgets.inlineBytes],
    ["timeouts.callMs", (c: ReturnType<typeof parseConfig>) => c.timeouts.callMs],
    ["cache.ttlMs", (c: ReturnType<typeof parseConfig>) => c.cache.ttlMs],
    ["outputs.maxBytes", (c: ReturnType<typeof parseConfig>) => c.outputs.maxBytes],
    ["http.maxSessions", (c: ReturnType<typeof parseConfig>) => c.http.maxSessions],
    ["code.maxFiles", (c: ReturnType<typeof parseConfig>) => c.code?.limits.maxFiles],
    ["security.maxDescriptionChars", (c: ReturnType<typeof parseConfig>) => c.security.maxDescriptionChars],
  ])("an empty config resolves %s to its default", (path, read) => {
    const config = parseConfig({ mcpServers: {} }, { file: join(tmpdir(), "metatools.json"), cwd: process.cwd() });
    expect(read(config)).toBe(leaves(DEFAULTS).find(([p]) => p === path)![1]);
  });

  it("writes the guide's block of defaults and its table cells from DEFAULTS", () => {
    const doc = [
      "<!-- defaults:begin -->",
      "old",
      "<!-- defaults:end -->",
      "",
      "| field | default | meaning |",
      "| `budgets.inlineBytes` | 4000 | the largest response |",
      "| `code.root` | the working directory | the project |",
    ].join("\n");
    const made = configurationWithDefaults(doc);
    expect(made).toContain(`"budgets": { "inlineBytes": ${DEFAULTS.budgets.inlineBytes}, "mediaBytes": ${DEFAULTS.budgets.mediaBytes} }`);
    expect(made).toContain(`| \`budgets.inlineBytes\` | ${DEFAULTS.budgets.inlineBytes} | the largest response |`);
    expect(made).toContain("| `code.root` | the working directory | the project |");
    expect(made).not.toContain("old");
  });

  it("writes a block of defaults that, pasted into a config file, loads as it is", () => {
    const made = configurationWithDefaults("<!-- defaults:begin -->\n<!-- defaults:end -->");
    const block = /```json\n([\s\S]*?)\n```/.exec(made)![1]!;
    const pasted = JSON.parse(`{${block}}`) as { metatools: Record<string, unknown> };
    expect(() => parseConfig({ mcpServers: {}, ...pasted }, { file: join(tmpdir(), "metatools.json"), env: {} })).not.toThrow();
    expect(Object.keys(pasted.metatools)).toContain("scripts");
  });
});
