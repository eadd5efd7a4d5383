/**
 * Every file generated from the code, so none can drift from it: the JSON
 * Schemas editors check `metatools.json` and catalog files with, and the
 * configuration, command and tool references in `docs/reference/`, the
 * CLI's command index (`src/cli/command-index.ts`) and the vector kernel
 * compiled from its WebAssembly text (`src/search/kernel/`). `npm run generate`
 * writes them; a test compares each with the checked-in file.
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import { BUILTIN_CATALOG_DIR, createMetatools } from "../app.js";
import { catalogFileSchema } from "../catalog/schema.js";
import { parseConfig } from "../config/load.js";
import { configFileSchema } from "../config/schema.js";
import { META_TOOLS } from "../meta/index.js";
import { cliReference, readmeWithCommands } from "./cli-reference.js";
import { commandIndexSource, declaredCommands } from "./command-index.js";
import { configReference } from "./config-reference.js";
import { configurationWithDefaults } from "./defaults-doc.js";
import { kernelModuleSource } from "./kernel-source.js";
import { responsesWithErrorCodes } from "./error-codes.js";
import { toolReference, type DocumentedTool } from "./tool-reference.js";

export interface GeneratedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
}

export function shippedSchemas(): { path: string; schema: Record<string, unknown> }[] {
  return [
    { path: "schema/config.schema.json", schema: generate(configFileSchema, "metatools configuration (metatools.json)") },
    { path: "catalog/catalog.schema.json", schema: generate(catalogFileSchema, "metatools catalog file") },
  ];
}

export async function generatedFiles(): Promise<GeneratedFile[]> {
  const schemas = shippedSchemas();
  const config = schemas.find((s) => s.path === "schema/config.schema.json")!.schema;
  const commands = (await declaredCommands()).map((c) => c.command);
  return [
    { path: "src/cli/command-index.ts", content: await commandIndexSource() },
    { path: "src/search/kernel/dot-i8.wasm.ts", content: await kernelModuleSource() },
    ...schemas.map(({ path, schema }) => ({ path, content: `${JSON.stringify(schema, null, 2)}\n` })),
    { path: "docs/reference/config.md", content: configReference(config) },
    { path: "docs/reference/cli.md", content: cliReference(commands) },
    { path: "README.md", content: readmeWithCommands(readFileSync(new URL("../../README.md", import.meta.url), "utf8"), commands) },
    { path: "docs/configuration.md", content: configurationWithDefaults(readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8")) },
    { path: "docs/responses.md", content: responsesWithErrorCodes(readFileSync(new URL("../../docs/responses.md", import.meta.url), "utf8")) },
    {
      path: "docs/reference/tools.md",
      content: toolReference(
        META_TOOLS.map((t) => ({ id: t.name, title: t.annotations.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations })),
        await builtinTools(),
      ),
    },
  ];
}

/** The built-in tools as an agent finds them: definitions with the shipped catalog's summaries and notes. */
async function builtinTools(): Promise<DocumentedTool[]> {
  const file = join(tmpdir(), "metatools-generate.json");
  const app = createMetatools(
    parseConfig(
      { mcpServers: {}, metatools: { security: { scan: false, lockFile: false }, search: { embedder: false } } },
      { file, builtinCatalogDir: BUILTIN_CATALOG_DIR, cwd: tmpdir() },
    ),
  );
  await app.start();
  try {
    return ["code", "metatools"].flatMap((ns) =>
      app.registry.namespaceRecords(ns).map((r) => ({
        id: r.id,
        title: r.title,
        summary: r.summary,
        description: r.description,
        inputSchema: r.inputSchema,
        annotations: r.annotations,
        notes: r.notes,
      })),
    );
  } finally {
    await app.close();
  }
}

function generate(schema: z.ZodType, title: string): Record<string, unknown> {
  return { title, ...(z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>) };
}
