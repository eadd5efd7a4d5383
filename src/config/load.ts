/**
 * Reads, substitutes and validates the config file, and resolves it.
 * Precedence: defaults < file < environment (`METATOOLS_CONFIG`) < CLI flags.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { isPlainObject } from "../util/data.js";
import { ConfigError } from "../util/errors.js";
import { cacheHome, formatPath, substituteEnv, type Secret } from "./env.js";
import { oauthSecrets, resolveAuth, withTokenFileDenied } from "./auth.js";
import { resolveAudit } from "./audit-schema.js";
import { check } from "./check.js";
import { resolveHttp } from "./http.js";
import { DEFAULT_PROFILE, noProfile } from "./profiles-schema.js";
import { resolveRequests } from "./requests.js";
import { readServerEntries } from "./entries.js";
import { resolveBackend } from "./server.js";
import { DEFAULTS } from "./defaults.js";
import type { BackendSpec, CodeConfig, EmbedderConfig, DisabledServer, ResolvedConfig, UnresolvedServer } from "./resolved.js";
import { configFileSchema, type ConfigFile, type MetatoolsSection } from "./schema.js";

export interface LoadOptions {
  /** Explicit config path (the `--config` flag); wins over METATOOLS_CONFIG. */
  configPath?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The catalog shipped with metatools; omitted in tests that want none. */
  builtinCatalogDir?: string;
  /** The `--root` flag: the code tools' project root, over the config's. */
  root?: string;
}

/** Namespaces metatools serves itself; a configured server may not take them. */
export const RESERVED_NAMESPACES = ["code", "metatools"];

export const DEFAULT_CONFIG_NAME = "metatools.json";

/** Finds and loads the config; with no file anywhere, returns the defaults. */
export function loadConfig(options: LoadOptions = {}): ResolvedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const explicit = options.configPath ?? env.METATOOLS_CONFIG;
  const file = explicit ? resolve(cwd, explicit) : resolve(cwd, DEFAULT_CONFIG_NAME);
  if (!existsSync(file)) {
    if (explicit) throw new ConfigError(file, "", "file not found (check --config or METATOOLS_CONFIG)");
    return resolveConfig({}, { baseDir: cwd, cwd, builtinCatalogDir: options.builtinCatalogDir, root: options.root, env, unresolved: [] });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigError(file, "", `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseConfig(raw, { file, env, builtinCatalogDir: options.builtinCatalogDir, cwd, root: options.root });
}

/** Validates an already-parsed config object; `file` is used in error messages and to resolve relative paths. */
export function parseConfig(
  raw: unknown,
  options: { file: string; env?: NodeJS.ProcessEnv; builtinCatalogDir?: string; cwd?: string; root?: string },
): ResolvedConfig {
  const { file } = options;
  const secrets: Secret[] = [];
  const env = options.env ?? process.env;
  // Each server on its own: one that cannot be used as written waits for a person (needs_config), the others serve.
  // The rest of the file is read as a whole: a problem there refuses the config.
  let substituted: unknown;
  let unresolved: UnresolvedServer[] = [];
  let disabled: DisabledServer[] = [];
  if (isPlainObject(raw) && isPlainObject(raw.mcpServers)) {
    const entries = readServerEntries(raw.mcpServers, env, file, secrets);
    unresolved = entries.unresolved;
    disabled = entries.disabled;
    substituted = { ...(substituteEnv({ ...raw, mcpServers: {} }, env, file, [], secrets) as object), mcpServers: entries.servers };
  } else substituted = substituteEnv(raw, env, file, [], secrets);
  const parsed = check(configFileSchema, substituted, file, []);
  const config = resolveConfig(parsed, {
    file,
    unresolved,
    baseDir: dirname(file),
    cwd: options.cwd ?? process.cwd(),
    builtinCatalogDir: options.builtinCatalogDir,
    root: options.root,
    env: options.env,
  });
  config.secrets = [...secrets, ...oauthSecrets(config), ...config.secrets];
  if (disabled.length) config.disabled = disabled;
  if (config.auth?.kind === "store" && config.store.url.startsWith("memory")) {
    throw new ConfigError(
      file,
      "metatools.auth.storage",
      '"store" keeps sign-ins in metatools.store, which is memory (this process only, so `metatools auth login` could not hand tokens to a running server): set metatools.store.url to redis://… or sqlite://…, or use "file"',
    );
  }
  return config;
}

function resolveConfig(
  parsed: ConfigFile,
  where: { file?: string; baseDir: string; cwd: string; builtinCatalogDir?: string; root?: string; env?: NodeJS.ProcessEnv; unresolved: UnresolvedServer[] },
): ResolvedConfig {
  const m = parsed.metatools ?? {};
  const code = resolveCode(m.code, where);
  const auth = resolveAuth(m.auth, where);
  const connectMs = m.timeouts?.connectMs ?? DEFAULTS.timeouts.connectMs;
  const callMs = m.timeouts?.callMs ?? DEFAULTS.timeouts.callMs;
  const requests = resolveRequests(m.requests, callMs);
  const backends: BackendSpec[] = [];
  const servers = [...Object.entries(parsed.mcpServers ?? {}), ...where.unresolved.map((u) => [u.namespace, undefined] as const)];
  for (const [namespace, server] of servers) {
    if (server?.disabled) continue;
    if (RESERVED_NAMESPACES.includes(namespace) && (namespace !== "code" || code)) {
      throw new ConfigError(
        where.file ?? "config",
        formatPath(["mcpServers", namespace]),
        `"${namespace}" is a namespace metatools serves itself${namespace === "code" ? " (the built-in code tools; set metatools.code.enabled to false to free it)" : ""}; rename the server`,
      );
    }
    if (!server) continue;
    const spec = resolveBackend(namespace, server, where.baseDir, connectMs, callMs);
    backends.push(spec.kind === "catalog" ? spec : { ...spec, requests });
  }
  const catalogs: string[] = [];
  if (where.builtinCatalogDir && (m.builtinCatalog ?? DEFAULTS.builtinCatalog)) catalogs.push(where.builtinCatalogDir);
  for (const dir of m.catalogs ?? DEFAULTS.catalogs) catalogs.push(resolve(where.baseDir, dir));
  const http = resolveHttp(m.http, where.env ?? process.env);
  http.tokenProfiles.forEach((profile, i) => {
    if (profile !== undefined && profile !== DEFAULT_PROFILE && !m.profiles?.[profile])
      throw new ConfigError(where.file ?? "config", `metatools.http.tokens.${i}.profile`, noProfile(profile, m.profiles));
  });
  return {
    file: where.file,
    backends,
    unresolved: where.unresolved,
    search: {
      defaultLimit: m.search?.defaultLimit ?? DEFAULTS.search.defaultLimit,
      maxLimit: DEFAULTS.search.maxLimit,
      mode: m.search?.mode ?? DEFAULTS.search.mode,
      // Omitted: the built-in embedder; false: none (BM25 only).
      ...(m.search?.embedder === false ? {} : { embedder: resolveEmbedder(m.search?.embedder ?? DEFAULTS.search.embedder, where.baseDir) }),
      ...(m.search?.embeddingCache === false
        ? {}
        : { embeddingCache: m.search?.embeddingCache ? resolve(where.baseDir, m.search.embeddingCache) : defaultCacheDir(where.env ?? process.env) }),
      embeddingCacheMaxBytes: m.search?.embeddingCacheMaxBytes ?? DEFAULTS.search.embeddingCacheMaxBytes,
      fusion: {
        k: m.search?.fusion?.k ?? DEFAULTS.search.fusion.k,
        ...(m.search?.fusion?.semanticWeight !== undefined ? { semanticWeight: m.search.fusion.semanticWeight } : {}),
        bm25Confidence: m.search?.fusion?.bm25Confidence ?? DEFAULTS.search.fusion.bm25Confidence,
      },
    },
    budgets: { inlineBytes: m.budgets?.inlineBytes ?? DEFAULTS.budgets.inlineBytes, mediaBytes: m.budgets?.mediaBytes ?? DEFAULTS.budgets.mediaBytes },
    http,
    ...(auth ? { auth } : {}),
    // Tokens from METATOOLS_TOKENS are secrets too; those written as ${VAR} in the file are found as it is read.
    secrets:
      (where.env ?? process.env).METATOOLS_TOKENS?.split(",")
        .map((t) => t.trim())
        .filter(Boolean)
        .map((value) => ({ name: "METATOOLS_TOKENS", value, credential: true })) ?? [],
    security: {
      scan: m.security?.scan ?? DEFAULTS.security.scan,
      ...(m.security?.lockFile === false || !where.file ? {} : { lockFile: resolve(where.baseDir, m.security?.lockFile ?? DEFAULTS.security.lockFile) }),
      maxDescriptionChars: m.security?.maxDescriptionChars ?? DEFAULTS.security.maxDescriptionChars,
      maxUnlistedPins: m.security?.maxUnlistedPins ?? DEFAULTS.security.maxUnlistedPins,
    },
    timeouts: {
      connectMs,
      callMs,
      startupGraceMs: m.timeouts?.startupGraceMs ?? DEFAULTS.timeouts.startupGraceMs,
      failureMemoryMs: m.timeouts?.failureMemoryMs ?? DEFAULTS.timeouts.failureMemoryMs,
    },
    requests,
    catalogs,
    access: { allow: m.tools?.allow ?? [...DEFAULTS.tools.allow], deny: m.tools?.deny ?? [...DEFAULTS.tools.deny] },
    profiles: m.profiles ?? {},
    run: {
      rejectUnknownArgs: m.run?.rejectUnknownArgs ?? DEFAULTS.run.rejectUnknownArgs,
      outputValidation: m.run?.outputValidation ?? DEFAULTS.run.outputValidation,
    },
    store: {
      url: resolveStoreUrl(m.store?.url ?? DEFAULTS.store.url, where.baseDir),
      prefix: m.store?.prefix ?? DEFAULTS.store.prefix,
      memoryMaxBytes: m.store?.memoryMaxBytes ?? DEFAULTS.store.memoryMaxBytes,
    },
    cache: {
      enabled: m.cache?.enabled ?? DEFAULTS.cache.enabled,
      ttlMs: m.cache?.ttlMs ?? DEFAULTS.cache.ttlMs,
      maxEntryBytes: m.cache?.maxEntryBytes ?? DEFAULTS.cache.maxEntryBytes,
      shareAcrossPrincipals: m.cache?.shareAcrossPrincipals ?? DEFAULTS.cache.shareAcrossPrincipals,
    },
    outputs: {
      ttlMs: m.outputs?.ttlMs ?? DEFAULTS.outputs.ttlMs,
      maxBytes: m.outputs?.maxBytes ?? DEFAULTS.outputs.maxBytes,
      principalBytes: m.outputs?.principalBytes ?? DEFAULTS.outputs.principalBytes,
      totalBytes: m.outputs?.totalBytes ?? DEFAULTS.outputs.totalBytes,
    },
    ...resolveAudit(m.audit, m.store?.url ?? DEFAULTS.store.url, where),
    ...(code ? { code: withTokenFileDenied(code, auth) } : {}),
    ...(m.learn === false
      ? {}
      : {
          learn: {
            halfLifeMs: (m.learn?.halfLifeDays ?? DEFAULTS.learn.halfLifeDays) * 86_400_000,
            windowMs: m.learn?.windowMs ?? DEFAULTS.learn.windowMs,
            maxEventsPerDay: m.learn?.maxEventsPerDay ?? DEFAULTS.learn.maxEventsPerDay,
            shareAfterPrincipals: m.learn?.shareAfterPrincipals ?? DEFAULTS.learn.shareAfterPrincipals,
            keepQueries: m.learn?.keepQueries ?? DEFAULTS.learn.keepQueries,
            persist: m.learn?.persist ?? DEFAULTS.learn.persist,
            ...(m.learn?.seed ? { seed: resolve(where.baseDir, m.learn.seed) } : {}),
          },
        }),
  };
}

/** Paths resolved against the config's folder; a model that is no local folder stays a hub id only when downloads are allowed. */
function resolveEmbedder(spec: Exclude<NonNullable<MetatoolsSection["search"]>["embedder"], false | undefined>, baseDir: string): EmbedderConfig {
  if (spec.type === "builtin") return { type: "builtin" };
  if (spec.type === "static") return { type: "static", vectors: resolve(baseDir, spec.vectors) };
  if (spec.type === "use") return spec.model === undefined ? { type: "use" } : { type: "use", model: resolve(baseDir, spec.model) };
  const local = resolve(baseDir, spec.model);
  const allowDownload = spec.allowDownload ?? DEFAULTS.transformers.allowDownload;
  return {
    type: "transformers",
    model: allowDownload && !existsSync(local) ? spec.model : local,
    dtype: spec.dtype ?? DEFAULTS.transformers.dtype,
    pooling: spec.pooling ?? DEFAULTS.transformers.pooling,
    queryPrefix: spec.queryPrefix ?? "",
    documentPrefix: spec.documentPrefix ?? "",
    allowDownload,
  };
}

/** Where embeddings are cached unless the config says otherwise: the XDG cache folder. */
function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  return join(cacheHome(env), "embeddings");
}

/** A SQLite path is relative to the config file's folder, like every other path in it. */
function resolveStoreUrl(url: string, baseDir: string): string {
  if (!url.startsWith("sqlite://")) return url;
  const path = url.slice("sqlite://".length);
  return `sqlite://${isAbsolute(path) ? path : resolve(baseDir, path)}`;
}

function resolveCode(section: MetatoolsSection["code"], where: { file?: string; baseDir: string; cwd: string; root?: string }): CodeConfig | undefined {
  if (!(section?.enabled ?? DEFAULTS.code.enabled)) return undefined;
  const root = where.root !== undefined ? resolve(where.cwd, where.root) : section?.root !== undefined ? resolve(where.baseDir, section.root) : where.cwd;
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    const from = where.root !== undefined ? "--root" : section?.root !== undefined ? "metatools.code.root" : "the working directory";
    throw new ConfigError(where.file ?? "config", from === "metatools.code.root" ? from : "", `${from}: ${root} is not a directory`);
  }
  return {
    root,
    deny: section?.deny ?? [...DEFAULTS.code.deny],
    allowHardLinks: section?.allowHardLinks ?? DEFAULTS.code.allowHardLinks,
    limits: {
      maxFileBytes: section?.maxFileBytes ?? DEFAULTS.code.maxFileBytes,
      maxFiles: section?.maxFiles ?? DEFAULTS.code.maxFiles,
      maxBytes: DEFAULTS.code.maxBytes,
      maxMs: section?.maxMs ?? DEFAULTS.code.maxMs,
    },
  };
}
