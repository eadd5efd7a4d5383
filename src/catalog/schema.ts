/**
 * The catalog file format: the one definition from which both the TypeScript
 * types and the shipped `catalog/catalog.schema.json` are derived.
 */
import * as z from "zod";

const example = z
  .object({
    title: z.string().min(1).describe("What the example shows, in a few words."),
    args: z.record(z.string(), z.unknown()).describe("Arguments for run_tool, valid against the tool's input schema."),
    result: z.string().optional().describe("What the result looks like: a sentence or an abbreviated sample."),
  })
  .strict();

const externalRef = z
  .object({
    title: z.string().min(1),
    url: z.string().url(),
  })
  .strict();

export const catalogEntrySchema = z
  .object({
    match: z
      .string()
      .min(1)
      .describe(
        "Which tools this entry documents: a tool name in any namespace (`read_file`), a full id (`fs:read_file`), or a glob over either (`*:read_*`).",
      ),
    summary: z.string().min(1).max(200).optional().describe("One line shown in search results, replacing the backend's."),
    tags: z.array(z.string().min(1)).optional().describe("Labels usable as search_tools `tags` filters; also searched."),
    aliases: z.array(z.string().min(1)).optional().describe("Extra search terms: synonyms an agent might use."),
    notes: z.string().min(1).optional().describe("Human notes shown by describe_tool at detail_level full."),
    examples: z.array(example).optional(),
    external_refs: z.array(externalRef).optional(),
    written_for: z
      .string()
      .regex(/^sha256:[0-9a-f]{12,64}$/)
      .optional()
      .describe(
        "The definition hash of the tool as this entry's author saw it (`sha256:` and at least 12 hex digits; `metatools doctor` shows each documented tool's hash when they differ). When the tool's definition changes, describe_tool and doctor say its catalog text may be out of date.",
      ),
    everyday: z
      .boolean()
      .optional()
      .describe(
        'The tool that plain words for what it and its siblings do mean ("read a file": read_text_file, not read_media_file): ranked a step ahead of them.',
      ),
    read_only: z.boolean().optional().describe("Overrides the backend's readOnlyHint."),
    destructive: z.boolean().optional().describe("Overrides the backend's destructiveHint."),
    cache: z
      .object({
        policy: z
          .enum(["auto", "always", "never"])
          .optional()
          .describe("auto (default): cache when the tool is read-only or idempotent and not destructive; always; never. A destructive tool is never cached."),
        ttl_ms: z.number().int().positive().optional().describe("How long its results are served from cache, over metatools.cache.ttlMs."),
      })
      .strict()
      .optional(),
  })
  .strict();

export const catalogFileSchema = z
  .object({
    $schema: z.string().optional(),
    description: z.string().optional().describe("What this file documents, for people."),
    server: z
      .string()
      .min(1)
      .optional()
      .describe("Glob on the backend's MCP serverInfo.name; when set, entries apply only to such backends, whatever their namespace."),
    tools: z.array(catalogEntrySchema),
  })
  .strict();

export type CatalogEntry = z.infer<typeof catalogEntrySchema>;
export type CatalogFile = z.infer<typeof catalogFileSchema>;
