/**
 * The config's `metatools.store`, `metatools.cache` and `metatools.outputs`
 * sections: where results and output handles are kept, and their bounds.
 */
import * as z from "zod";
import { bytesWords, DEFAULTS, msWords } from "./defaults.js";

export const storeSectionSchema = z
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
        `Bound of the memory store, each for the cache, what search learns and resource links; least recently used first out. Output handles have bounds of their own (\`outputs.principalBytes\`, \`outputs.totalBytes\`). Default ${bytesWords(DEFAULTS.store.memoryMaxBytes)}.`,
      ),
  })
  .strict();

export const cacheSectionSchema = z
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
  .strict();

export const outputsSectionSchema = z
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
      .describe(
        `Largest output kept under a handle (at most half of \`outputs.principalBytes\`, room for its JSON quoting); a longer one keeps its first lines and says so. Default ${bytesWords(DEFAULTS.outputs.maxBytes)}.`,
      ),
    principalBytes: z
      .number()
      .int()
      .min(64 << 10)
      .optional()
      .describe(
        `Each caller's (principal's) share of the output store: past it, that caller's own oldest outputs are evicted to make room, never another caller's, and reading one says it was evicted. Each reply that makes a handle says how much more its caller can store before that handle may go. Default ${bytesWords(DEFAULTS.outputs.principalBytes)}.`,
      ),
    totalBytes: z
      .number()
      .int()
      .min(64 << 10)
      .optional()
      .describe(
        `All callers' outputs together, in memory or in Redis: a new output that would pass it is refused (\`store_full\`: the reply says to narrow the call or retry as outputs expire), rather than evict another caller's. Default ${bytesWords(DEFAULTS.outputs.totalBytes)}.`,
      ),
  })
  .strict();
