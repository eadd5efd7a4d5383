/**
 * Composes metatools from a resolved config: backends feed the registry, the
 * registry feeds the search index, and the executor dispatches calls through
 * the result cache; oversized results go to the output store. No work
 * happens until `start()`; `close()` stops every backend and store.
 */
import { connects } from "./model/transport-kinds.js";
import { join } from "node:path";
import { PACKAGE_ROOT } from "./util/package-root.js";
import { identityOf, snapshotFile, ToolSnapshot } from "./backends/snapshot.js";
import { applyKnown, rememberFailures } from "./backends/known.js";
import { cacheHome } from "./config/env.js";
import type { BackendManager } from "./backends/manager.js";
import { Reaper } from "./backends/reaper.js";
import type { Backend } from "./backends/types.js";
import { loadCatalogs } from "./catalog/load.js";
import { CatalogIndex } from "./catalog/match.js";
import type { ResolvedConfig } from "./config/resolved.js";
import type { Credentials } from "./auth/credentials.js";
import { ResourceLinks } from "./disclosure/resource-links.js";
import { BackendOfferings } from "./exec/offerings.js";
import { ResourceReader } from "./exec/resources.js";
import { QuestionRelay } from "./server/questions.js";
import { TaskBoard } from "./server/tasks.js";
import { ClientLog } from "./observe/client-log.js";
import { RUN_ENVELOPE_BYTES } from "./meta/result.js";
import type { ClientFeatures } from "./model/peer.js";
import { KeyValueOutputStore, type OutputStore } from "./disclosure/outputs.js";
import { ResultCache } from "./exec/cache.js";
import { Executor } from "./exec/executor.js";
import { Telemetry } from "./observe/telemetry.js";
import { openStoreParts } from "./store/open.js";
import type { CallerShares } from "./meta/shares.js";
import { openShares } from "./app/shares.js";
import { storeHealth, type StoreHealth } from "./store/health.js";
import { aboutText } from "./registry/about.js";
import { ToolRegistry } from "./registry/registry.js";
import type { SearchEngine } from "./search/engine.js";
import type { Learner } from "./learn/learner.js";
import type { AuditLog } from "./audit/log.js";
import { openAuditLog } from "./audit/open.js";
import { openGate, type ToolGate } from "./security/gate.js";
import { Profiles } from "./security/profiles.js";
import { silentLogger, type Logger } from "./util/log.js";
import { redactingLogger, type Redact } from "./util/redact.js";
import { manageBackends } from "./app/backends.js";
import { builtinBackends } from "./app/builtins.js";
import { openSearch } from "./app/search.js";
import { openSignIn } from "./app/sign-in.js";
import { SessionNotices } from "./meta/notices.js";

export type { StoreHealth } from "./store/health.js";

export interface AppOptions {
  logger?: Logger;
  /** Extra backends beside the configured ones (built-ins, or tests' in-process servers). */
  extraBackends?: Backend[];
  /** Reconnect delays; tests shorten them. */
  backoffMs?: number[];
  /** How long an open circuit waits before the next try (BackendManager). */
  breakerMs?: number;
  /** Spans and metrics; default the global OpenTelemetry providers (no-ops unless an SDK is registered). */
  telemetry?: Telemetry;
  /**
   * How long background work waits after the app is made (the embedder's
   * load and the vectors' index): a server answers its handshake and first
   * searches first (ranked by BM25 until it is done). Default 0.
   */
  backgroundDelayMs?: number;
}

export interface Metatools {
  config: ResolvedConfig;
  registry: ToolRegistry;
  search: SearchEngine;
  backends: BackendManager;
  executor: Executor;
  /** Oversized results, kept under handles that `metatools:read_output` reads. */
  outputs: OutputStore;
  /** Resource links backends return, handed on and read back (`resources/read`, `metatools:read_resource`). */
  resources: ResourceReader;
  /** Backends' prompts and resources, offered to clients under namespaced names (`prompts/list`, `resources/list`). */
  offerings: BackendOfferings;
  /** Calls waiting for a 2026-07-28 client's answer to a backend's question (src/server/questions.ts). */
  questions: QuestionRelay;
  /** Long calls of 2026-07-28 clients that became tasks (src/server/tasks.ts). */
  tasks: TaskBoard;
  /** Log messages for clients that asked for them (MCP logging): backends' and metatools' own. */
  clientLog: ClientLog;
  cache: ResultCache;
  /** Replaces secrets from the environment in text about to be shown (logs, errors, responses). */
  redact: Redact;
  /** Tool poisoning and rug-pull checks: quarantined tools, approvals. */
  gate: ToolGate;
  /** Each caller's share of run_tool calls in flight and questions waiting (src/meta/shares.ts). */
  shares: CallerShares;
  /** Who may see and run what (metatools.profiles): one is chosen per caller. */
  profiles: Profiles;
  telemetry: Telemetry;
  /** Where remote backends' sign-ins are kept; undefined when no backend signs in. */
  credentials?: Credentials;
  /** What search learns from use; undefined when `learn: false`. */
  learner?: Learner;
  /** Where every run_tool call leaves its record (metatools.audit); undefined when the audit trail is off. */
  audit?: AuditLog;
  /** What each session was told once (the namespaces its instructions named, the unavailable backends): said again only when it changes. */
  notices: SessionNotices;
  /** Pings the shared store (cache and output handles); never rejects. */
  checkStore(): Promise<StoreHealth>;
  /**
   * Serves every backend's tools from the snapshot at once, then starts the
   * backends (all, or those `only` names plus any without a snapshot that
   * did not fail within `timeouts.failureMemoryMs`);
   * settles when each started one has connected or failed. Never rejects.
   * `clientFeatures`: what backends are told the client side can answer
   * (elicitation, sampling); default both (`serve` on stdio passes what its
   * client's initialize declares).
   */
  start(options?: { only?: readonly string[]; clientFeatures?: ClientFeatures }): Promise<void>;
  close(): Promise<void>;
}

/** The catalog shipped with the package, beside `dist/` (or `src/` under a TS runner). */
export const BUILTIN_CATALOG_DIR = join(PACKAGE_ROOT, "catalog");

export function createMetatools(config: ResolvedConfig, options: AppOptions = {}): Metatools {
  // Secrets from the environment never show: backends' output is redacted as it arrives (before anything cuts it), and every log line and response again.
  const signIn = openSignIn(config);
  const { redact, credentials } = signIn;
  // Clients that asked for log messages (MCP logging) get each backend's, and metatools' own warnings and errors, redacted as every line is.
  const clientLog = new ClientLog((level) => backends.logs.setLevel(level));
  const logger = redactingLogger(clientLog.alsoTo(options.logger ?? silentLogger), redact);
  const { lock, gate, registry } = openRegistry(config, logger);
  const stores = openStoreParts(config.store, config.outputs, config.serve);
  const { search, semantic, learning } = openSearch(config, registry, logger, redact, options.backgroundDelayMs);
  const learner = learning?.learner;
  // Every run_tool call's record, appended in the background: to a file per config, or to the shared Redis.
  const audit = config.audit && openAuditLog(config.audit, config.store, (message) => logger.warn(message));
  const outputs = new KeyValueOutputStore(stores.quota, { ttlMs: config.outputs.ttlMs, maxBytes: config.outputs.maxBytes });
  // What answers under a namespace: its config (hashed once, as the snapshot keys it) and its server's version. Results cached for another are never served.
  const configured = new Map(config.backends.map((spec) => [spec.namespace, identityOf(spec)]));
  const identity = (namespace: string) => `${configured.get(namespace) ?? "builtin"}\0${backends.state(namespace)?.info?.version ?? ""}`;
  const cache = new ResultCache(stores.cache, config.cache, logger, identity);
  // Resource links a backend returns are handed on under metatools:// names, read back through it (resources/read, or metatools:read_resource).
  const links = new ResourceLinks(stores.links, config.outputs.ttlMs);
  // Each caller's share of calls in flight and questions waiting: counted across replicas on a shared store.
  const shares = openShares(config, stores.relay, logger);
  // Backends' questions to 2026-07-28 clients, which answer in a retry that may reach another replica.
  const shared = stores.relay.kind !== "memory";
  const questions = new QuestionRelay(stores.relay, config.serve.questionTimeoutMs, shared);
  // Long calls of 2026-07-28 clients that take tasks: any replica on a shared store answers for them.
  const tasks = new TaskBoard(stores.relay, stores.taskQuota, {
    afterMs: config.serve.taskAfterMs,
    ttlMs: config.serve.taskTtlMs,
    questionMs: config.serve.questionTimeoutMs,
    shared,
  });
  const builtins = builtinBackends(config, outputs, config.budgets.inlineBytes - RUN_ENVELOPE_BYTES, redact, () => resources);
  // What backends are told the client side can answer; filled in by `start`, before any backend connects.
  const clientFeatures: ClientFeatures = { elicitation: true, sampling: true };
  // Stops stdio backends' process groups if this process dies without closing them; started with the first one.
  const reaper = new Reaper(logger);
  const snapshot = new ToolSnapshot(snapshotFile(cacheHome(), config.file));
  snapshot.retain(config.backends.map((b) => b.namespace));
  const backends = manageBackends(config, {
    redact,
    signIn,
    clientFeatures,
    reaper,
    others: [...builtins, ...(options.extraBackends ?? [])],
    logger,
    backoffMs: options.backoffMs,
    breakerMs: options.breakerMs,
    // Failures are remembered beside the snapshot, so the next CLI command does not start a backend that just failed.
    onSettled: rememberFailures(config.backends, snapshot),
  });
  backends.logs.onLog((namespace, log) =>
    clientLog.publish({ level: log.level, logger: log.logger ? `${namespace}/${log.logger}` : namespace, data: log.data }),
  );
  keepSnapshot(config, backends, registry, gate, snapshot);
  const offerings = new BackendOfferings(backends, config.timeouts.callMs, config.budgets.inlineBytes, config.timeouts.startupGraceMs);
  const resources = new ResourceReader(links, backends, config.timeouts.callMs, offerings);
  const executor = new Executor(registry, backends, cache, {
    defaultTimeoutMs: config.timeouts.callMs,
    rejectUnknownArgs: config.run.rejectUnknownArgs,
    outputValidation: config.run.outputValidation,
    logger,
  });
  return {
    config,
    registry,
    search,
    backends,
    executor,
    outputs,
    resources,
    offerings,
    questions,
    tasks,
    clientLog,
    cache,
    telemetry: options.telemetry ?? new Telemetry(),
    gate,
    profiles: new Profiles(config.profiles),
    shares,
    redact,
    notices: new SessionNotices(),
    ...(credentials ? { credentials } : {}),
    ...(learner ? { learner } : {}),
    ...(audit ? { audit } : {}),
    checkStore: () => storeHealth(stores.cache),
    // The embedder's load is awaited, so a broken one is reported at start; indexing goes on in the background.
    start: (options) => {
      if (options?.clientFeatures) Object.assign(clientFeatures, options.clientFeatures);
      lock?.watch();
      return startAll(options?.only);
    },
    close: async () => {
      await closeAll();
    },
  };
  function startAll(only?: readonly string[]): Promise<void> {
    // Last known tools first: searchable before any backend is up. One without a snapshot is started, unless it failed a moment ago.
    const chosen = applyKnown(config, snapshot, backends, { only, claim: (tools, hashes) => gate.claim(tools, hashes), logger });
    return Promise.all([backends.start(chosen), reportStore(stores, logger), semantic?.ready, learning?.start()]).then(() => undefined);
  }
  async function closeAll(): Promise<void> {
    snapshot.flush();
    learning?.flush();
    lock?.close();
    search.close();
    await backends.close();
    reaper.close();
    await semantic?.close();
    questions.close();
    tasks.close();
    shares.close();
    await Promise.all([
      stores.cache.close(),
      stores.outputs.close(),
      stores.links.close(),
      stores.relay.close(),
      stores.tasks.close(),
      learning?.close(),
      credentials?.close(),
      audit?.close(),
    ]);
  }
}

/** The registry over the catalogs and config's access rules, behind the security gate. */
function openRegistry(config: ResolvedConfig, logger: Logger): ReturnType<typeof openGate> & { registry: ToolRegistry } {
  const catalog = new CatalogIndex(loadCatalogs(config.catalogs, join(cacheHome(), "catalog")));
  const { lock, gate } = openGate(config.security, logger);
  const byNamespace = new Map(config.backends.flatMap((spec) => (spec.tools ? [[spec.namespace, spec.tools] as const] : [])));
  const serverNames = new Map(config.backends.flatMap((spec) => (spec.serverName !== undefined ? [[spec.namespace, spec.serverName] as const] : [])));
  const registry = new ToolRegistry(catalog, { ...config.access, byNamespace }, gate, { serverNames, hints: config.search.serverWords });
  // An approval (`metatools approve`) rewrites the lock file: a running server notices (lock.watch) and lets the tool in.
  lock?.onChange(() => registry.regate());
  return { lock, gate, registry };
}

/** Backends' tools go to the registry, and a ready configured one's to the snapshot (the next start serves them at once). */
function keepSnapshot(config: ResolvedConfig, backends: BackendManager, registry: ToolRegistry, gate: ToolGate, snapshot: ToolSnapshot): void {
  const specOf = new Map(config.backends.map((spec) => [spec.namespace, spec]));
  backends.onTools((namespace, tools, info, runnable) => {
    // The tools as listed, search hints included: the registry indexes hints only with search.serverWords, and pins them either way.
    registry.setNamespace(namespace, tools, info?.name, runnable, config.search.serverWords ? aboutText(info) : "");
    const spec = specOf.get(namespace);
    if (spec && connects(spec) && backends.state(namespace)?.status === "ready")
      snapshot.set(
        spec,
        tools,
        info,
        tools.map((tool) => gate.hashOf(tool)),
      );
  });
}

/** Tells where the shared store is, or that it is unreachable; never rejects. */
function reportStore(stores: ReturnType<typeof openStoreParts>, logger: Logger): Promise<unknown> {
  return storeHealth(stores.cache).then((health) => {
    if (health.kind === "memory") return;
    if (!health.ok) return logger.error(`${health.error}; results are not cached and large outputs cannot be kept until it is reachable`);
    logger.info(`store: ${health.where}`);
    // A Redis that may evict what metatools keeps, or grow without bound, is told to the operator once, at start.
    return stores.quota.advice?.().then(
      (advice) => advice && logger.warn(advice),
      () => {},
    );
  });
}
