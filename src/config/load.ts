/**
 * Reads, substitutes and validates the config file, and resolves it.
 * Precedence: defaults < file < environment (`METATOOLS_CONFIG`) < CLI flags.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { connects } from "../model/transport-kinds.js";
import { isPlainObject } from "../util/data.js";
import { ConfigError } from "../util/errors.js";
import { jsonErrorWhere } from "../util/json-error.js";
import { cacheHome, formatPath, substituteEnv, type Secret } from "./env.js";
import { apartFromHttp } from "./http-vars.js";
import { oauthSecrets, resolveAuth, withTokenFileDenied } from "./auth.js";
import { resolveAudit } from "./audit-schema.js";
import { check } from "./check.js";
import { resolveHttp } from "./http.js";
import { DEFAULT_PROFILE, noProfile } from "./profiles-schema.js";
import { resolveRequests } from "./requests.js";
import { readServerEntries } from "./entries.js";
import { resolveBackend } from "./server.js";
import { DEFAULTS } from "./defaults.js";
import { fillDefaults } from "./fill.js";
import type {
  BackendSpec,
  CodeConfig,
  DisabledServer,
  EmbedderConfig,
  LearnConfig,
  Metatools,
  ResolvedConfig,
  SearchConfig,
  UnresolvedServer,
} from "./resolved.js";
import { configFileSchema, type ConfigFile } from "./schema.js";

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
  const text = readFileSync(file, "utf8");
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, "", `not valid JSON: ${jsonErrorWhere(text, error)}`);
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
  // metatools.http on its own: a variable only HTTP serving needs, unset, stops only `serve --http` (httpUnset).
  const { rest, withHttp, httpUnset } = apartFromHttp(raw, env, file, secrets);
  if (isPlainObject(rest) && isPlainObject(rest.mcpServers)) {
    const entries = readServerEntries(rest.mcpServers, env, file, secrets);
    unresolved = entries.unresolved;
    disabled = entries.disabled;
    substituted = withHttp({ ...(substituteEnv({ ...rest, mcpServers: {} }, env, file, [], secrets) as object), mcpServers: entries.servers });
  } else substituted = withHttp(substituteEnv(rest, env, file, [], secrets));
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
  if (httpUnset) config.httpUnset = httpUnset;
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
  // Every constant default at once; what follows is only what a constant cannot say.
  const m = fillDefaults(parsed.metatools, DEFAULTS);
  const env = where.env ?? process.env;
  const code = resolveCode(m.code, where);
  const auth = resolveAuth(m.auth, where);
  const { connectMs, callMs } = m.timeouts;
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
    backends.push(connects(spec) ? { ...spec, requests } : spec);
  }
  const catalogs: string[] = [];
  if (where.builtinCatalogDir && m.builtinCatalog) catalogs.push(where.builtinCatalogDir);
  for (const dir of m.catalogs) catalogs.push(resolve(where.baseDir, dir));
  const http = resolveHttp(m.http, env);
  http.tokenProfiles.forEach((profile, i) => {
    if (profile !== undefined && profile !== DEFAULT_PROFILE && !m.profiles?.[profile])
      throw new ConfigError(where.file ?? "config", `metatools.http.tokens.${i}.profile`, noProfile(profile, m.profiles));
  });
  const { lockFile, ...security } = m.security;
  return {
    file: where.file,
    backends,
    unresolved: where.unresolved,
    search: resolveSearch(m.search, parsed.metatools?.search?.fusion?.semanticWeight, where.baseDir, env),
    budgets: m.budgets,
    http,
    ...(auth ? { auth } : {}),
    // Tokens from METATOOLS_TOKENS are secrets too; those written as ${VAR} in the file are found as it is read.
    secrets:
      env.METATOOLS_TOKENS?.split(",")
        .map((t) => t.trim())
        .filter(Boolean)
        .map((value) => ({ name: "METATOOLS_TOKENS", value, credential: true })) ?? [],
    security: { ...security, ...(lockFile === false || !where.file ? {} : { lockFile: resolve(where.baseDir, lockFile) }) },
    timeouts: m.timeouts,
    requests,
    catalogs,
    access: m.tools,
    profiles: m.profiles ?? {},
    run: m.run,
    serve: m.serve,
    scripts: m.scripts,
    store: { ...m.store, url: resolveStoreUrl(m.store.url, where.baseDir) },
    cache: m.cache,
    outputs: m.outputs,
    ...resolveAudit(m.audit, m.store.url, where),
    ...(code ? { code: withTokenFileDenied(code, auth) } : {}),
    ...(m.learn === false ? {} : { learn: resolveLearn(m.learn, where.baseDir) }),
  };
}

/** The semantic weight is the file's, else the embedder's own: DEFAULTS holds only the one for embedders that name none. */
function resolveSearch(section: Metatools["search"], semanticWeight: number | undefined, baseDir: string, env: NodeJS.ProcessEnv): SearchConfig {
  const { embedder, embeddingCache, fusion, ...search } = section;
  const { semanticWeight: _default, ...weights } = fusion;
  return {
    ...search,
    // false: no embedder (BM25 only).
    ...(embedder === false ? {} : { embedder: resolveEmbedder(embedder, baseDir) }),
    ...(embeddingCache === false ? {} : { embeddingCache: embeddingCache ? resolve(baseDir, embeddingCache) : defaultCacheDir(env) }),
    fusion: { ...weights, ...(semanticWeight !== undefined ? { semanticWeight } : {}) },
  };
}

function resolveLearn(section: Exclude<Metatools["learn"], false>, baseDir: string): LearnConfig {
  const { halfLifeDays, seed, ...learn } = section;
  return { ...learn, halfLifeMs: halfLifeDays * 86_400_000, ...(seed ? { seed: resolve(baseDir, seed) } : {}) };
}

/** Paths resolved against the config's folder; a model that is no local folder stays a hub id only when downloads are allowed. */
function resolveEmbedder(spec: Exclude<Metatools["search"]["embedder"], false>, baseDir: string): EmbedderConfig {
  if (spec.type === "builtin") return { type: "builtin" };
  if (spec.type === "static") return { type: "static", vectors: resolve(baseDir, spec.vectors) };
  if (spec.type === "use") return spec.model === undefined ? { type: "use" } : { type: "use", model: resolve(baseDir, spec.model) };
  if (spec.type === "openai") {
    const { queryPrefix = "", documentPrefix = "", url, ...service } = fillDefaults(spec, DEFAULTS.openai);
    return { ...service, url: url.replace(/\/+$/, ""), queryPrefix, documentPrefix };
  }
  const { model, queryPrefix = "", documentPrefix = "", ...settings } = fillDefaults(spec, DEFAULTS.transformers);
  const local = resolve(baseDir, model);
  return { ...settings, model: settings.allowDownload && !existsSync(local) ? model : local, queryPrefix, documentPrefix };
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

function resolveCode(section: Metatools["code"], where: { file?: string; baseDir: string; cwd: string; root?: string }): CodeConfig | undefined {
  const { enabled, root: configured, deny, allowHardLinks, ...limits } = section;
  if (!enabled) return undefined;
  const root = where.root !== undefined ? resolve(where.cwd, where.root) : configured !== undefined ? resolve(where.baseDir, configured) : where.cwd;
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    const from = where.root !== undefined ? "--root" : configured !== undefined ? "metatools.code.root" : "the working directory";
    throw new ConfigError(where.file ?? "config", from === "metatools.code.root" ? from : "", `${from}: ${root} is not a directory`);
  }
  return { root, deny, allowHardLinks, limits };
}
