/**
 * Every default of the config, in one object shaped like the `metatools`
 * section it fills. The resolver applies them generically (fill.ts: a
 * field with a constant default needs no resolver code), the schema's
 * descriptions (and so the generated reference and the JSON Schema) quote
 * them, the tools' texts quote the ones an agent meets, and the guide's
 * block of defaults (docs/configuration.md) is generated from it. A test
 * checks that each description quotes the value it is next to.
 */
export const DEFAULTS = {
  search: {
    defaultLimit: 5,
    /** The most hits one search_tools page may ask for. Not configurable. */
    maxLimit: 50,
    mode: "auto",
    /** Hybrid search with no setup: the built-in table needs no download, runtime or native code. */
    embedder: { type: "builtin" },
    /** The embedding cache's cap, in memory and on disk (the file may pass it by a quarter before it is compacted): about 64,000 texts of the built-in embedder. */
    embeddingCacheMaxBytes: 64 << 20,
    /** What servers say about themselves (instructions, serverInfo, tools' search hints) is indexed: it tells namespaces apart. */
    serverWords: true,
    /** Measured on the public retrieval sets (docs/retrieval.md): a low k keeps BM25's confident top ranks apart. */
    // semanticWeight: for an embedder that names no weight of its own (`use` names 1.5).
    fusion: { k: 3, semanticWeight: 1.25, bm25Confidence: 20 },
  },
  /** An embedder of type `openai` (an OpenAI-compatible embedding service). */
  openai: { batchSize: 64, concurrency: 2, timeoutMs: 30_000, queryTimeoutMs: 1500 },
  /** An embedder of type `transformers`. */
  transformers: { dtype: "q8", pooling: "mean", allowDownload: false },
  budgets: { inlineBytes: 10_000, mediaBytes: 1 << 20 },
  /** failureMemoryMs: how long a backend that failed to start is remembered as failed, so CLI commands do not start it again each time. */
  timeouts: { connectMs: 30_000, callMs: 60_000, startupGraceMs: 3_000, failureMemoryMs: 5 * 60_000 },
  catalogs: [] as string[],
  builtinCatalog: true,
  tools: { allow: [] as string[], deny: [] as string[] },
  run: { rejectUnknownArgs: true, outputValidation: "warn" },
  store: { url: "memory", prefix: "metatools", memoryMaxBytes: 64 << 20 },
  cache: { enabled: true, ttlMs: 5 * 60_000, maxEntryBytes: 1 << 20, shareAcrossPrincipals: false },
  /** principalBytes: each caller's share of the output store (its oldest go first past it); totalBytes: all callers' together (past it, a new output is refused, never someone else's evicted). */
  outputs: { ttlMs: 30 * 60_000, maxBytes: 16 << 20, principalBytes: 64 << 20, totalBytes: 256 << 20 },
  /** maxUnlistedPins: first-use pins kept per namespace for tools it no longer lists (about 200 bytes each in the lock file; docs/security.md says why the others are kept). */
  security: { scan: true, lockFile: "metatools.lock.json", maxDescriptionChars: 10_000, maxUnlistedPins: 500 },
  auth: { storage: "file", file: "metatools.tokens.json" },
  http: {
    tokens: [] as string[],
    allowedOrigins: [] as string[],
    maxBodyBytes: 1 << 20,
    bodyTimeoutMs: 10_000,
    rateLimit: { perMinute: 1200 },
    sessionIdleMs: 30 * 60_000,
    maxSessions: 1000,
    maxSessionsPerToken: 100,
    shutdownGraceMs: 2000,
  },
  code: {
    enabled: true,
    deny: [] as string[],
    allowHardLinks: false,
    maxFileBytes: 1 << 20,
    maxFiles: 50_000,
    /** The most bytes one code-tool call reads. Not configurable. */
    maxBytes: 256 << 20,
    maxMs: 20_000,
  },
  /** What search learns from use (src/learn/). */
  learn: {
    /** Evidence loses half its weight in this time. */
    halfLifeDays: 30,
    /** A run counts for the searches of its session this recent. */
    windowMs: 10 * 60_000,
    /** Learning events one principal may add per day: one client cannot flood what everyone's search uses. */
    maxEventsPerDay: 500,
    /** Distinct principals that must teach a term for a tool before it counts in other principals' searches (a principal's own teaching counts for it at once). */
    shareAfterPrincipals: 3,
    /** Keep the queries' text (for export and review); off, only analyzed terms are kept. */
    keepQueries: false,
    /** With the memory store and a config file: keep what was learned in a file in the cache folder, so a restart keeps it. */
    persist: true,
  },
  /**
   * Requests a backend sends back to the client during a call (elicitation, sampling): untrusted output, so bounded.
   * maxTokens: the most a sampling request may ask the client's model for; larger asks are lowered to it.
   */
  requests: { maxPerCall: 10, maxPerMinute: 60, maxConcurrent: 4, maxTokens: 4096 },
  /** The audit trail of run_tool calls (src/audit/): a file rotated past maxBytes keeping `keep` older ones, or maxRecords in Redis. */
  audit: { enabled: true, maxBytes: 10 << 20, keep: 5, maxRecords: 100_000 },
  /**
   * What serve tells its clients of the three tools, and each caller's share of what serving holds:
   * run_tool calls in flight (tasks included), questions waiting for its answer, bytes of its task records.
   */
  serve: {
    alwaysLoad: true,
    questionTimeoutMs: 10 * 60_000,
    taskAfterMs: 5000,
    taskTtlMs: 60 * 60_000,
    callsPerCaller: 32,
    questionsPerCaller: 16,
    taskBytesPerCaller: 32 << 20,
    taskBytes: 256 << 20,
  },
  /**
   * Programs (metatools:run_program): each runs in a fresh QuickJS context in a worker, within these. cpuMs: CPU time in
   * the sandbox (waiting for tools is free); memoryMb: the WebAssembly memory of one worker; maxCalls, concurrency: its
   * tool calls in all and at once; logLines: console lines kept; returnChars: its return value as JSON; resultBytes: one
   * call's result as the program reads it; workers: programs run at once on this server; perCaller: of them, one caller's.
   */
  scripts: {
    enabled: true,
    cpuMs: 5000,
    memoryMb: 64,
    maxCalls: 200,
    concurrency: 16,
    logLines: 200,
    returnChars: 1_000_000,
    resultBytes: 4 << 20,
    workers: 2,
    perCaller: 1,
  },
  /** Defaults of the tools' own arguments. */
  describe: { examplesMax: 2 },
} as const;

/** A burst of `perMinute / 6`, at least 10: the rate limit's default burst. */
export function defaultBurst(perMinute: number): number {
  return Math.max(10, Math.ceil(perMinute / 6));
}

/** Bytes as a reader sees them: "1048576 (1 MiB)". */
export function bytesWords(bytes: number): string {
  const unit = bytes >= 1 << 20 && bytes % (1 << 20) === 0 ? `${bytes / (1 << 20)} MiB` : bytes >= 1024 && bytes % 1024 === 0 ? `${bytes / 1024} KiB` : "";
  return unit ? `${bytes} (${unit})` : String(bytes);
}

/** Milliseconds as a reader sees them: "1800000 (30 minutes)". */
export function msWords(ms: number): string {
  const unit = ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? "" : "s"}` : "";
  return unit ? `${ms} (${unit})` : String(ms);
}
