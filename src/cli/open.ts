/**
 * Loads the config and builds the app for a one-shot CLI command, with every
 * backend connected (or failed) before the command runs.
 */
import { BUILTIN_CATALOG_DIR, createMetatools, type Metatools } from "../app.js";
import { loadConfig } from "../config/load.js";
import { createLogger, type LogLevel } from "../util/log.js";

/** The flags every command shares: `--config FILE` and `--root DIR`. */
export interface AppFlags {
  config?: string;
  root?: string;
}

/**
 * `prepare` sees the app before it starts, to follow what starting does.
 * `only`: the backends to start (the others answer from the snapshot of
 * their last tool list; one without a snapshot is started anyway).
 */
export async function openApp(flags: AppFlags, level: LogLevel, prepare?: (app: Metatools) => void, only?: readonly string[]): Promise<Metatools> {
  const config = loadConfig({ configPath: flags.config, root: flags.root, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  const app = createMetatools(config, { logger: createLogger(level) });
  prepare?.(app);
  await app.start(only ? { only } : undefined);
  return app;
}

/** Runs `body` with an open app and always closes it, so child servers never outlive the command. */
export async function withApp<T>(flags: AppFlags, level: LogLevel, body: (app: Metatools) => Promise<T>, only?: readonly string[]): Promise<T> {
  const app = await openApp(flags, level, undefined, only);
  try {
    return await body(app);
  } finally {
    await app.close();
  }
}
