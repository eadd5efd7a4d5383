import { BUILTIN_CATALOG_DIR, createMetatools } from "../../app.js";
import { loadConfig } from "../../config/load.js";
import { serveStdio } from "../../serving.js";
import { createLogger } from "../../util/log.js";
import { logLevel, parseFlags, UsageError } from "../flags.js";

export async function serve(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {});
  if (positionals.length) throw new UsageError(`serve takes no positional arguments, got "${positionals.join(" ")}"`);
  const logger = createLogger(logLevel(values["log-level"], "info"));
  const config = loadConfig({ configPath: values.config, root: values.root, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  logger.info(config.file ? `config ${config.file}: ${config.backends.length} backends` : "no config file: no backends configured");
  if (config.code) logger.info(`code tools over ${config.code.root}`);
  const app = createMetatools(config, { logger });
  const { closed } = await serveStdio(app, logger);
  await closed;
  return 0;
}
