/**
 * The resolved config is the parsed file with DEFAULTS applied by one
 * generic filler (src/config/fill.ts): a field added to a schema and to its
 * defaults is resolved, typed as required, with no other edit. Shown on a
 * small schema of its own, and on the real config: every constant default
 * reaches the resolved config at its path, but for the few the resolver
 * derives (listed here, each with its reason).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DEFAULTS } from "../../../src/config/defaults.js";
import { fillDefaults } from "../../../src/config/fill.js";
import { parseConfig } from "../../../src/config/load.js";

const nested = z.object({ name: z.string().optional(), on: z.boolean().optional() }).strict();
const schema = z
  .object({
    limit: z.number().int().optional(),
    mode: z.enum(["fast", "slow"]).optional(),
    nested: nested.optional(),
    tags: z.array(z.string()).optional(),
    folder: z.string().optional(),
    learn: z.union([z.object({ days: z.number().optional() }).strict(), z.literal(false)]).optional(),
  })
  .strict();
const defaults = {
  limit: 5,
  mode: "fast",
  nested: { name: "n", on: true },
  tags: [] as string[],
  learn: { days: 30 },
  /** A default no setting changes. */
  maxLimit: 50,
} as const;

const fill = (raw: unknown) => fillDefaults(schema.parse(raw), defaults);

describe("fillDefaults", () => {
  it.each([
    ["nothing: every default, at any depth", {}, { limit: 5, mode: "fast", nested: { name: "n", on: true }, tags: [], learn: { days: 30 }, maxLimit: 50 }],
    [
      "what the file gives wins, and a half-written object is filled",
      { limit: 9, nested: { on: false }, tags: ["a"] },
      { limit: 9, mode: "fast", nested: { name: "n", on: false }, tags: ["a"], learn: { days: 30 }, maxLimit: 50 },
    ],
    ["false (turned off) stays false", { learn: false }, { limit: 5, mode: "fast", nested: { name: "n", on: true }, tags: [], learn: false, maxLimit: 50 }],
    [
      "a field with no default stays as written",
      { folder: "x", mode: "slow" },
      { limit: 5, mode: "slow", nested: { name: "n", on: true }, tags: [], learn: { days: 30 }, maxLimit: 50, folder: "x" },
    ],
  ])("%s", (_, raw, expected) => {
    expect(fill(raw)).toStrictEqual(expected);
  });

  it("an array is the file's or the default's, never both", () => {
    expect(fillDefaults({ tags: ["b"] }, { tags: ["a"] }).tags).toEqual(["b"]);
  });

  it("copies the defaults: changing a resolved value changes no other config", () => {
    const first = fill({});
    first.tags.push("x");
    first.nested.name = "changed";
    expect(fill({})).toMatchObject({ tags: [], nested: { name: "n" } });
    expect(defaults.tags).toEqual([]);
  });

  it("orders fields as the defaults do, whatever the file's order", () => {
    expect(JSON.stringify(fill({ nested: { on: false, name: "m" }, limit: 2 }))).toBe(JSON.stringify(fill({ limit: 2, nested: { name: "m", on: false } })));
  });

  it("types a defaulted field as required, of the schema's type; a field without a default keeps its optionality", () => {
    const filled = fill({});
    expectTypeOf(filled.limit).toEqualTypeOf<number>();
    expectTypeOf(filled.mode).toEqualTypeOf<"fast" | "slow">();
    expectTypeOf(filled.nested).toEqualTypeOf<{ name: string; on: boolean }>();
    expectTypeOf(filled.tags).toEqualTypeOf<string[]>();
    expectTypeOf(filled.learn).toEqualTypeOf<{ days: number } | false>();
    expectTypeOf(filled.maxLimit).toEqualTypeOf<number>();
    expectTypeOf(filled.folder).toEqualTypeOf<string | undefined>();
  });

  it("a field added to the schema and to the defaults is resolved with its default, with no other edit", () => {
    const grown = schema.extend({ retries: z.number().int().optional(), nested: nested.extend({ depth: z.number().optional() }).optional() });
    const grownDefaults = { ...defaults, retries: 3, nested: { ...defaults.nested, depth: 2 } } as const;
    const filled = fillDefaults(grown.parse({ nested: { name: "given" } }), grownDefaults);
    expect(filled).toMatchObject({ retries: 3, nested: { name: "given", on: true, depth: 2 }, limit: 5 });
    expect(fillDefaults(grown.parse({ retries: 7 }), grownDefaults).retries).toBe(7);
    expectTypeOf(filled.retries).toEqualTypeOf<number>();
    expectTypeOf(filled.nested.depth).toEqualTypeOf<number>();
  });
});

/** Every constant default with its path: `["search", "defaultLimit"]` → 5. */
function leaves(node: unknown, path: string[] = []): [string[], unknown][] {
  if (node && typeof node === "object" && !Array.isArray(node)) return Object.entries(node).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [[path, node]];
}

// What the resolver computes instead of copying, and why: the rest reaches the resolved config at its path.
const DERIVED: Record<string, string> = {
  "search.embedder": "resolved to an embedder spec, paths absolute",
  "search.fusion.semanticWeight": "unset means the embedder's own weight",
  "transformers.dtype": "a transformers embedder's, when one is configured",
  "transformers.pooling": "a transformers embedder's, when one is configured",
  "transformers.allowDownload": "a transformers embedder's, when one is configured",
  "openai.batchSize": "an embedding service's, when one is configured",
  "openai.concurrency": "an embedding service's, when one is configured",
  "openai.timeoutMs": "an embedding service's, when one is configured",
  "openai.queryTimeoutMs": "an embedding service's, when one is configured",
  catalogs: "folders resolved, after the built-in catalog",
  builtinCatalog: "the built-in catalog's folder in `catalogs`",
  "security.lockFile": "an absolute path beside the config",
  "auth.storage": "`auth` is where sign-ins are kept: the store, or a file",
  "auth.file": "an absolute path beside the config",
  "code.enabled": "`code` is there or not",
  "learn.halfLifeDays": "learn.halfLifeMs",
  "audit.enabled": "`audit` is there or not",
  "audit.maxRecords": "with the audit trail in Redis only",
  "describe.examplesMax": "a tool argument's default, not the config's",
};

/** Where a default lands: `tools` resolves to `access`, the code tools' numbers to `code.limits`. */
function resolvedPath([section, ...rest]: string[]): string[] {
  if (section === "tools") return ["access", ...rest];
  if (section === "code" && rest[0]?.startsWith("max")) return ["code", "limits", ...rest];
  return [section!, ...rest];
}

describe("the resolved config", () => {
  const config = parseConfig({ mcpServers: {} }, { file: join(tmpdir(), "metatools.json"), cwd: process.cwd(), env: {} });
  const copied = leaves(DEFAULTS).filter(([path]) => !(path.join(".") in DERIVED));

  it("copies most defaults as they are", () => {
    expect(copied.length).toBeGreaterThan(50);
  });

  it.each(copied.map(([path, value]) => [path.join("."), path, value] as const))("has %s at its default", (_, path, value) => {
    const found = resolvedPath(path).reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);
    expect(found).toEqual(value);
  });
});
