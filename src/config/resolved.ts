import type { ConfigError } from "../util/errors.js";
/**
 * The resolved configuration: every default applied, every path absolute.
 * Everything past the config loader trusts this shape. A section's fields
 * come from its schema and `DEFAULTS` (fill.ts); only the fields the
 * resolver computes (paths, derived values) are written here.
 */
import type { ProfileSpec } from "./profiles-schema.js";
import type { AuditConfig } from "./audit-schema.js";
import type { DEFAULTS } from "./defaults.js";
import type { Secret } from "./env.js";
import type { Filled, Replace, Simplify } from "./fill.js";
import type { HttpConfig } from "./http.js";
import type { MetatoolsSection } from "./schema.js";
import type { ConfiguredKind, RemoteKind } from "../model/transport-kinds.js";

interface BackendCommon {
  namespace: string;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  /** Which of its tools are served, by the server's own names (the entry's `tools`); undefined: all. */
  tools?: { allow: string[]; deny: string[] };
  /** The server it is, in the operator's word (the entry's `serverName`): catalogs match this name instead of the one the backend reports, and are trusted for it. */
  serverName?: string;
}

/** Bounds on a backend's requests back to the client (elicitation, sampling); see backends/peers.ts. */
export type RequestLimits = Replace<
  Metatools["requests"],
  {
    /** The longest a call waits for its turn on a backend that asks: the default call timeout, whatever another caller's timeout_ms. */
    turnWaitMs: number;
  }
>;

export interface StdioBackendSpec extends BackendCommon {
  kind: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** Unset (a spec made by hand): the defaults. */
  requests?: RequestLimits;
}

export interface RemoteBackendSpec extends BackendCommon {
  kind: RemoteKind;
  url: string;
  headers: Record<string, string>;
  /** How to sign in when the server asks for OAuth; undefined when it never is (`oauth: false`, or an Authorization header is configured). */
  oauth?: OAuthSettings;
  /** Unset (a spec made by hand): the defaults. */
  requests?: RequestLimits;
}

/** A remote backend that signs in with OAuth: what `auth login`, its probe and the serve-time signer work on. */
export type SignInSpec = RemoteBackendSpec & { oauth: OAuthSettings };

/** A remote backend's OAuth client settings, all optional: what is not set is discovered from the server. */
export interface OAuthSettings {
  clientId?: string;
  clientSecret?: string;
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none";
  clientMetadataUrl?: string;
  scopes?: string[];
  callbackPort?: number;
}

/** Where sign-ins are kept: a file readable by its owner alone, or the shared store (replicas). */
export type AuthStorage = { kind: "file"; file: string } | { kind: "store" };

export interface CatalogBackendSpec extends BackendCommon {
  kind: "catalog";
  /** Absolute path of a tools.jsonl file. */
  toolsFile: string;
}

export type BackendSpec = StdioBackendSpec | RemoteBackendSpec | CatalogBackendSpec;

/**
 * A configured server that cannot start as written: its entry names a
 * `${VAR}` that is not set, or has a bad field. It is shown as
 * `needs_config` with the fix, and every other server serves.
 */
/** A server entry turned off with `"disabled": true`: its kind, guessed from its fields, and nothing else read. */
export interface DisabledServer {
  namespace: string;
  kind: ConfiguredKind;
}

export interface UnresolvedServer {
  namespace: string;
  /** What the entry was meant to be, as far as it says. */
  kind: BackendSpec["kind"];
  /** The field at fault, e.g. `mcpServers.brave.env.BRAVE_API_KEY`. */
  field: string;
  problem: string;
  /** What a person must do: "set BRAVE_API_KEY in the environment metatools runs in …". */
  fix: string;
}

/** The `metatools` section as parsed, with every constant default of `DEFAULTS` applied (fill.ts). */
export type Metatools = Filled<MetatoolsSection, typeof DEFAULTS>;

export interface ResolvedConfig {
  /** The file the config came from; undefined when running on defaults. */
  file?: string;
  backends: BackendSpec[];
  /** Servers whose entries cannot be used as written (disabled ones are in neither list). */
  unresolved: UnresolvedServer[];
  /** Servers turned off with `"disabled": true` (never resolved); absent when there are none or no file. */
  disabled?: DisabledServer[];
  /**
   * `metatools.http` names a `${VAR}` that is not set: what only serving HTTP needs does not stop the other commands
   * (stdio, the CLI), which run with the http defaults; `serve --http` refuses with this error.
   */
  httpUnset?: ConfigError;
  search: SearchConfig;
  budgets: Metatools["budgets"];
  http: HttpConfig;
  /** Where OAuth tokens are kept; undefined without a config file (no remote backends then). */
  auth?: AuthStorage;
  /** Values from the environment that must never show (config/secrets.ts says which): redacted from logs, errors and responses. */
  secrets: Secret[];
  /** lockFile: absolute path, or undefined (no config file, or turned off). */
  security: Replace<Metatools["security"], { lockFile?: string }>;
  timeouts: Metatools["timeouts"];
  /** Bounds on backends' requests back to the client; each stdio or remote backend's spec carries them too. */
  requests: RequestLimits;
  /** Catalog folders or files, in load order (later entries override earlier). */
  catalogs: string[];
  /** The config's `tools` rules: which tool ids are served at all. */
  access: Metatools["tools"];
  /** Named profiles (src/security/profiles.ts), as written; `default` applies to callers given none. */
  profiles: Record<string, ProfileSpec>;
  run: Metatools["run"];
  /** What serve tells the clients it serves. */
  serve: Metatools["serve"];
  /** Programs (metatools:run_program): whether they are offered, and every run's limits. */
  scripts: Metatools["scripts"];
  store: StoreConfig;
  cache: CacheConfig;
  outputs: Metatools["outputs"];
  /** The built-in code-intelligence backend; undefined when disabled. */
  code?: CodeConfig;
  /** What search learns from use; undefined when `learn: false`. */
  learn?: LearnConfig;
  /** The audit trail of run_tool calls; undefined when `audit.enabled` is false. */
  audit?: AuditConfig;
}

/**
 * embedder undefined: `embedder: false` (BM25 only); embeddingCache: an absolute folder, undefined keeps embeddings
 * in memory; fusion.semanticWeight undefined: the embedder's own.
 */
export type SearchConfig = Replace<
  Metatools["search"],
  { embedder?: EmbedderConfig; embeddingCache?: string; fusion: Replace<Metatools["search"]["fusion"], { semanticWeight?: number }> }
>;

export type SearchMode = SearchConfig["mode"];

/** halfLifeMs: from `halfLifeDays`; seed: an absolute path. Persisting (with the memory store and a config file) is src/learn/file-store.ts. */
export type LearnConfig = Replace<Omit<Exclude<Metatools["learn"], false>, "halfLifeDays">, { halfLifeMs: number; seed?: string }>;

export type OutputValidation = Metatools["run"]["outputValidation"];

export type EmbedderConfig =
  /** The word-vector table shipped in the package (`models/builtin.mtvec`): the default. */
  | { type: "builtin" }
  | { type: "static"; vectors: string }
  /** A sentence-embedding model folder run by transformers.js. */
  | { type: "transformers"; model: string; dtype: "fp32" | "q8"; pooling: "mean" | "cls"; queryPrefix: string; documentPrefix: string; allowDownload: boolean }
  /** An OpenAI-compatible embedding service (`POST {url}/embeddings`); url without a trailing slash. */
  | {
      type: "openai";
      url: string;
      model: string;
      apiKey?: string;
      dimensions?: number;
      queryPrefix: string;
      documentPrefix: string;
      batchSize: number;
      concurrency: number;
      timeoutMs: number;
      queryTimeoutMs: number;
    }
  /** Universal Sentence Encoder lite run by TensorFlow.js; no model means the installed weights package. */
  | { type: "use"; model?: string };

/** url: `memory`, `redis://…`, `rediss://…`, or `sqlite://` and an absolute path. */
export type StoreConfig = Metatools["store"];

export type ScriptsConfig = Metatools["scripts"];

/** shareAcrossPrincipals: one cache for all principals; otherwise each principal's results are keyed apart. */
export type CacheConfig = Metatools["cache"];

/** The `code` fields that are no per-call limit; every other one is. */
type CodePolicy = "enabled" | "root" | "deny" | "allowHardLinks";

export type CodeConfig = Simplify<
  Pick<Metatools["code"], "deny" | "allowHardLinks"> & {
    /** Absolute project root. */
    root: string;
    limits: Simplify<Omit<Metatools["code"], CodePolicy>>;
  }
>;
