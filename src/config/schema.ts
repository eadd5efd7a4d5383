/**
 * The configuration file, defined once: the zod schema yields the public
 * (all-optional) TypeScript type and the JSON Schema shipped in `schema/`.
 * Defaults live in `defaults.ts`; the descriptions quote them from there,
 * and `fill.ts` applies them to what this schema parsed.
 */
import * as z from "zod";
import { auditSectionSchema } from "./audit-schema.js";
import { bytesWords, DEFAULTS, msWords } from "./defaults.js";
import { httpSectionSchema } from "./http.js";
import { requestsSectionSchema } from "./requests.js";
import { learnSectionSchema, searchSectionSchema } from "./search-schema.js";
import { profilesSectionSchema } from "./profiles-schema.js";
import { DEFAULT_SECRET_PATTERNS } from "./secret-files.js";
import { serverSchema } from "./server-schema.js";
import { serveSectionSchema } from "./serve-schema.js";
import { scriptsSectionSchema } from "./scripts-schema.js";
import { cacheSectionSchema, outputsSectionSchema, storeSectionSchema } from "./store-schema.js";

export { NAMESPACE_PATTERN, serverSchema, type ServerConfig } from "./server-schema.js";

const accessRules = z
  .object({
    allow: z.array(z.string()).optional().describe("Globs over tool ids (`github:*`); when set, only matching tools are exposed."),
    deny: z.array(z.string()).optional().describe("Globs over tool ids hidden from search and refused by run_tool; deny wins over allow."),
  })
  .strict();

export const metatoolsSectionSchema = z
  .object({
    search: searchSectionSchema.optional(),
    learn: learnSectionSchema,
    security: z
      .object({
        scan: z
          .boolean()
          .optional()
          .describe(
            `Quarantine tools whose definitions look like tool poisoning (hidden instructions, credential reads, invisible characters, very long descriptions). Default ${DEFAULTS.security.scan}.`,
          ),
        lockFile: z
          .union([z.string().min(1), z.literal(false)])
          .optional()
          .describe(
            `Where tool definitions are pinned, relative to the config file. Default ${DEFAULTS.security.lockFile} beside it; false pins nothing (a changed definition then goes unnoticed).`,
          ),
        maxDescriptionChars: z
          .number()
          .int()
          .min(200)
          .optional()
          .describe(
            `A longer description is flagged (more than anyone reviews, and room to hide instructions in). Default ${DEFAULTS.security.maxDescriptionChars}: real APIs document many parameters in prose.`,
          ),
        maxUnlistedPins: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            `Pins the lock file keeps per namespace for first-use tools the backend no longer lists, the most recently listed; older ones are pruned. Pins of listed tools and approved pins are always kept. Default ${DEFAULTS.security.maxUnlistedPins}.`,
          ),
      })
      .strict()
      .optional(),
    http: httpSectionSchema.optional().describe("How `metatools serve --http` admits requests and keeps sessions."),
    auth: z
      .object({
        storage: z
          .enum(["file", "store"])
          .optional()
          .describe(
            `Where OAuth tokens of remote backends are kept: file (readable by you alone) or store (metatools.store, so replicas serving over HTTP share one sign-in; it must not be memory). Default ${DEFAULTS.auth.storage}.`,
          ),
        file: z
          .string()
          .min(1)
          .optional()
          .describe(`The token file, relative to the config file. Default ${DEFAULTS.auth.file} beside it. Keep it out of version control.`),
      })
      .strict()
      .optional()
      .describe("Sign-ins to remote backends (`metatools auth`)."),
    budgets: z
      .object({
        inlineBytes: z.number().int().min(2000).max(1_000_000).optional().describe(`Largest response sent inline. Default ${DEFAULTS.budgets.inlineBytes}.`),
        mediaBytes: z
          .number()
          .int()
          .min(0)
          .max(64 * 1024 * 1024)
          .optional()
          .describe(
            `Largest total of a backend's images and audio (decoded bytes) sent with one run_tool reply; more is kept under a handle whose next call returns it. 0 keeps all of it under a handle. Default ${bytesWords(DEFAULTS.budgets.mediaBytes)}.`,
          ),
      })
      .strict()
      .optional(),
    timeouts: z
      .object({
        connectMs: z.number().int().positive().optional().describe(`Per-backend connect and list timeout. Default ${DEFAULTS.timeouts.connectMs}.`),
        callMs: z.number().int().positive().optional().describe(`Default run_tool timeout. Default ${DEFAULTS.timeouts.callMs}.`),
        startupGraceMs: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            `How long the server waits for backends before answering initialize, so instructions list them. Default ${DEFAULTS.timeouts.startupGraceMs}.`,
          ),
        failureMemoryMs: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            `How long a backend that failed to start is remembered as failed (with why, in the cache folder beside the tool snapshot): CLI search and describe answer without starting it again until then, or until --refresh; 0 remembers nothing. Default ${msWords(DEFAULTS.timeouts.failureMemoryMs)}.`,
          ),
      })
      .strict()
      .optional(),
    requests: requestsSectionSchema.optional(),
    serve: serveSectionSchema,
    scripts: scriptsSectionSchema,
    audit: auditSectionSchema,
    catalogs: z.array(z.string()).optional().describe("Extra catalog folders or files, after the built-in one."),
    builtinCatalog: z.boolean().optional().describe(`Load the catalog shipped with metatools. Default ${DEFAULTS.builtinCatalog}.`),
    tools: accessRules.optional(),
    profiles: profilesSectionSchema,
    code: z
      .object({
        enabled: z.boolean().optional().describe(`Serve the built-in code-intelligence tools (namespace \`code\`). Default ${DEFAULTS.code.enabled}.`),
        root: z
          .string()
          .optional()
          .describe("Project root the code tools work in; relative to the config file's folder. Default: the working directory (`--root` overrides)."),
        deny: z
          .array(z.string())
          .optional()
          .describe(
            `Secret files the code tools neither list nor read, in .gitignore syntax, added after the default list; a \`!pattern\` re-allows a default one (e.g. \`!.npmrc\`). Defaults: ${DEFAULT_SECRET_PATTERNS.map((p) => `\`${p}\``).join(", ")}.`,
          ),
        allowHardLinks: z
          .boolean()
          .optional()
          .describe(
            `Read files that have more than one name (hard links). Default ${DEFAULTS.code.allowHardLinks}: another name of the file may be outside the root or a secret file, and nothing inside the root can tell.`,
          ),
        maxFileBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Files larger than this are summarized, not read whole, parsed or searched. Default ${bytesWords(DEFAULTS.code.maxFileBytes)}.`),
        maxFiles: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Most files one code-tool call visits; the response says when it stopped. Default ${DEFAULTS.code.maxFiles}.`),
        maxMs: z.number().int().positive().optional().describe(`Longest one code-tool call spends walking and reading, in ms. Default ${DEFAULTS.code.maxMs}.`),
      })
      .strict()
      .optional(),
    store: storeSectionSchema.optional(),
    cache: cacheSectionSchema.optional(),
    outputs: outputsSectionSchema.optional(),
    run: z
      .object({
        outputValidation: z
          .enum(["warn", "strict", "off"])
          .optional()
          .describe(
            `Check structuredContent against the tool's outputSchema: warn adds a warning, strict turns a mismatch into an error, off skips it. Default ${DEFAULTS.run.outputValidation}.`,
          ),
        rejectUnknownArgs: z
          .boolean()
          .optional()
          .describe(
            `Refuse run_tool arguments that a tool's schema does not declare (unless the schema allows extra properties), with a did-you-mean. Most servers silently drop such arguments. Default ${DEFAULTS.run.rejectUnknownArgs}.`,
          ),
      })
      .strict()
      .optional(),
  })
  .strict();

export const configFileSchema = z
  .object({
    $schema: z.string().optional(),
    mcpServers: z.record(z.string(), serverSchema).optional(),
    metatools: metatoolsSectionSchema.optional(),
  })
  .strict();

export type MetatoolsSection = z.infer<typeof metatoolsSectionSchema>;
/** The config file as users write it: every field optional. */
export type ConfigFile = z.infer<typeof configFileSchema>;
