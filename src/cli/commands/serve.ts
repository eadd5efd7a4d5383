import { BUILTIN_CATALOG_DIR, createMetatools } from "../../app.js";
import { loadConfig } from "../../config/load.js";
import { isLoopback } from "../../http/guard.js";
import { serveHttp } from "../../http/server.js";
import { serveStdio } from "../../serving.js";
import { createLogger } from "../../util/log.js";
import { intFlag, logLevel, parseFlags, UsageError } from "../flags.js";

export async function serve(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    http: { type: "string" },
    host: { type: "string" },
    stateless: { type: "boolean" },
    "allow-unauthenticated": { type: "boolean" },
  });
  if (positionals.length) throw new UsageError(`serve takes no positional arguments, got "${positionals.join(" ")}"`);
  const port = intFlag(values.http, "http", 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--http takes a port number (0 picks a free one), got ${port}`);
  if (port === undefined && (values.host !== undefined || values.stateless || values["allow-unauthenticated"])) {
    throw new UsageError("--host, --stateless and --allow-unauthenticated go with --http PORT");
  }
  const logger = createLogger(logLevel(values["log-level"], "info"));
  const config = loadConfig({ configPath: values.config, root: values.root, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  const host = values.host ?? "127.0.0.1";
  if (port !== undefined && !isLoopback(host) && !config.http.tokens.length && !values["allow-unauthenticated"]) {
    throw new UsageError(
      `refusing to serve on ${host} without authentication: anyone who reaches it could run every tool. Set bearer tokens (metatools.http.tokens or METATOOLS_TOKENS), or pass --allow-unauthenticated if something in front of it authenticates`,
    );
  }
  logger.info(config.file ? `config ${config.file}: ${config.backends.length} backends` : "no config file: no backends configured");
  if (config.code) logger.info(`code tools over ${config.code.root}`);
  const app = createMetatools(config, { logger });
  if (port === undefined) {
    const { closed } = await serveStdio(app, logger);
    await closed;
    return 0;
  }
  const service = await serveHttp(app, { port, host, stateless: values.stateless ?? false }, logger);
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        logger.info(`${signal}: finishing in-flight requests (up to ${config.http.shutdownGraceMs} ms), then closing backends`);
        void service.close().then(resolve, (error: unknown) => {
          logger.error(`shutdown: ${error instanceof Error ? error.message : String(error)}`);
          resolve();
        });
      });
    }
  });
  return 0;
}
