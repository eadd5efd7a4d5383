/**
 * Composes metatools from a resolved config: backends feed the registry, the
 * registry feeds the search index, and the executor dispatches calls. No
 * work happens until `start()`; `close()` stops every backend.
 */
import { fileURLToPath } from "node:url";
import { createBackend } from "./backends/factory.js";
import { BackendManager } from "./backends/manager.js";
import type { Backend } from "./backends/types.js";
import { loadCatalogs } from "./catalog/load.js";
import { CatalogIndex } from "./catalog/match.js";
import type { ResolvedConfig } from "./config/resolved.js";
import { Executor } from "./exec/executor.js";
import { ToolRegistry } from "./registry/registry.js";
import { SearchEngine } from "./search/engine.js";
import { silentLogger, type Logger } from "./util/log.js";

export interface AppOptions {
  logger?: Logger;
  /** Extra backends beside the configured ones (built-ins, or tests' in-process servers). */
  extraBackends?: Backend[];
  /** Reconnect delays; tests shorten them. */
  backoffMs?: number[];
}

export interface Metatools {
  config: ResolvedConfig;
  registry: ToolRegistry;
  search: SearchEngine;
  backends: BackendManager;
  executor: Executor;
  /** Starts every backend; settles when each has connected or failed. Never rejects. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** The catalog shipped with the package, beside `dist/` (or `src/` under a TS runner). */
export const BUILTIN_CATALOG_DIR = fileURLToPath(new URL("../catalog", import.meta.url));

export function createMetatools(config: ResolvedConfig, options: AppOptions = {}): Metatools {
  const logger = options.logger ?? silentLogger;
  const catalog = new CatalogIndex(loadCatalogs(config.catalogs));
  const registry = new ToolRegistry(catalog, config.access);
  const search = new SearchEngine(registry);
  const backends = new BackendManager(
    [
      ...config.backends.map((spec) => ({ backend: createBackend(spec), spec })),
      ...(options.extraBackends ?? []).map((backend) => ({
        backend,
        spec: { namespace: backend.namespace, connectTimeoutMs: config.timeouts.connectMs, callTimeoutMs: config.timeouts.callMs },
      })),
    ],
    { logger, backoffMs: options.backoffMs },
  );
  backends.onTools((namespace, tools, info) => {
    registry.setNamespace(namespace, tools, info?.name, backends.state(namespace)?.runnable ?? true);
  });
  const executor = new Executor(registry, backends, { defaultTimeoutMs: config.timeouts.callMs, rejectUnknownArgs: config.run.rejectUnknownArgs });
  return {
    config,
    registry,
    search,
    backends,
    executor,
    start: () => backends.start(),
    close: () => backends.close(),
  };
}
