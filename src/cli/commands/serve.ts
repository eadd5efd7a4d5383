import { BUILTIN_CATALOG_DIR, createMetatools } from "../../app.js";
import { loadConfig } from "../../config/load.js";
import { isLoopback } from "../../http/guard.js";
import { serveStdio, type StdioStart } from "../../stdio/serve.js";
import type { KeptHandshake } from "../../stdio/handshake.js";
import { fileHash, keepAnswer, readAnswer } from "../../util/remembered-answer.js";
import { quickStarted } from "../quick-start.js";
import { DEFAULT_PROFILE, noProfile } from "../../config/profiles-schema.js";
import { createLogger } from "../../util/log.js";
import { redactingLogger, redactor } from "../../util/redact.js";
import { flag, logLevel, parseFlags, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { errorMessage } from "../../util/errors.js";

export const command = defineCommand({
  name: "serve",
  group: "start",
  summary: "the MCP server: on stdio (what clients launch), or Streamable HTTP on /mcp",
  usage: (f) => `[${f.profile}] | [${f.http} [${f.host}] [${f.stateless}] [${f["allow-unauthenticated"]}]]`,
  details: "Over HTTP a caller's profile comes from its token ({token, profile} in metatools.http.tokens) or the URL path (/mcp/NAME), not from --profile.",
  flags: {
    profile: flag.string("NAME", "give the stdio client this profile of metatools.profiles: the tools it sees, the approvals its calls need"),
    http: flag.int("PORT", 0, "serve Streamable HTTP on /mcp at this port instead of stdio (0 picks a free one)"),
    host: flag.string("HOST", "the address to listen on (default 127.0.0.1); one beyond loopback needs bearer tokens (metatools.http.tokens)"),
    stateless: flag.boolean("no sessions: each request stands alone, so replicas behind a load balancer can answer any"),
    "allow-unauthenticated": flag.boolean("serve beyond loopback without bearer tokens, when something in front of it authenticates"),
  },
  run: serve,
});

/** What the quick start read and answered (src/cli/quick-start.ts), and how this run's answer is kept for the next launch of the same words over the same config. */
function handshakeKept(configFile: string | undefined): Pick<StdioStart, "prefix" | "answered" | "remember"> {
  const quick = quickStarted();
  if (!quick) return {};
  const configHash = configFile ? fileHash(configFile) : undefined;
  return {
    prefix: quick.prefix,
    ...(quick.answered ? { answered: quick.answered } : {}),
    // Without a config file (or one that cannot be read again) nothing says when the answer is stale: none is kept.
    ...(configFile && configHash
      ? {
          remember: ({ requested, initialize, toolsList, namespaces }: KeptHandshake) => {
            const kept = readAnswer(quick.file);
            const results = kept && kept.configHash === configHash ? kept.results : {};
            keepAnswer(quick.file, {
              config: configFile,
              configHash,
              results: { ...results, [requested]: initialize },
              ...(toolsList ? { toolsList } : {}),
              namespaces,
            });
          },
        }
      : {}),
  };
}

/** How long `serve` lets its first requests go before loading the embedder. */
const SERVE_BACKGROUND_DELAY_MS = 300;

export async function serve(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals.length) throw new UsageError(`serve takes no positional arguments, got "${positionals.join(" ")}"`);
  const port = values.http;
  if (port !== undefined && port > 65535) throw new UsageError(`--http takes a port number (0 picks a free one), got ${port}`);
  if (port === undefined && (values.host !== undefined || values.stateless || values["allow-unauthenticated"])) {
    throw new UsageError("--host, --stateless and --allow-unauthenticated go with --http PORT");
  }
  if (port !== undefined && values.profile !== undefined)
    throw new UsageError(
      "--profile is for stdio; over HTTP a caller's profile comes from its token ({token, profile} in metatools.http.tokens) or the path /mcp/NAME",
    );
  const stderr = createLogger(logLevel(values["log-level"], "info"));
  const config = loadConfig({ configPath: values.config, root: values.root, builtinCatalogDir: BUILTIN_CATALOG_DIR });
  if (values.profile !== undefined && values.profile !== DEFAULT_PROFILE && !config.profiles[values.profile])
    throw new UsageError(`--profile: ${noProfile(values.profile, config.profiles)}`);
  // The servers log faults and request errors themselves: through the same redactor as the app's own lines.
  const logger = redactingLogger(stderr, redactor(config.secrets));
  // A variable only HTTP needs, unset, stops serving HTTP alone (stdio and the other commands run without it).
  if (port !== undefined && config.httpUnset) throw config.httpUnset;
  const host = values.host ?? "127.0.0.1";
  if (port !== undefined && !isLoopback(host) && !config.http.tokens.length && !values["allow-unauthenticated"]) {
    throw new UsageError(
      `refusing to serve on ${host} without authentication: anyone who reaches it could run every tool. Set bearer tokens (metatools.http.tokens or METATOOLS_TOKENS), or pass --allow-unauthenticated if something in front of it authenticates`,
    );
  }
  // Counted as doctor counts them: the entries that cannot be used as written too, said apart.
  const entries = config.backends.length + config.unresolved.length;
  const waiting = config.unresolved.length ? ` (${config.unresolved.length} needs_config)` : "";
  logger.info(config.file ? `config ${config.file}: ${entries} backend${entries === 1 ? "" : "s"}${waiting}` : "no config file: no backends configured");
  if (config.code) logger.info(`code tools over ${config.code.root}`);
  // The handshake and the first searches come before the embedder's load (until it is done, searches rank by BM25 and say so).
  const app = createMetatools(config, { logger: stderr, backgroundDelayMs: SERVE_BACKGROUND_DELAY_MS });
  if (port === undefined) {
    // Whatever is in flight, the process is gone soon after its client leaves or it is told to stop.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => exitDeadline(STDIO_EXIT_MS, logger));
    process.stdin.once("end", () => exitDeadline(STDIO_EXIT_MS, logger));
    const { closed } = await serveStdio(app, logger, { profile: values.profile, ...handshakeKept(config.file) });
    await closed;
    return 0;
  }
  // Loaded for --http only: the HTTP transport's code (Streamable HTTP, sessions, guards) costs a stdio start tens of milliseconds.
  const { serveHttp } = await import("../../http/server.js");
  const service = await serveHttp(app, { port, host, stateless: values.stateless ?? false }, logger);
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      process.once(signal, () => {
        exitDeadline(config.http.shutdownGraceMs + 2500, logger);
        logger.info(`${signal}: finishing in-flight requests (up to ${config.http.shutdownGraceMs} ms), then closing backends`);
        void service.close().then(resolve, (error: unknown) => {
          logger.error(`shutdown: ${errorMessage(error)}`);
          resolve();
        });
      });
    }
  });
  return 0;
}

/** How long a stdio server may take to stop after stdin closes or a signal comes. */
const STDIO_EXIT_MS = 4000;

/**
 * Ends the process `ms` from now if it is still there. Orderly shutdown
 * closes backends and stores, but a read stuck in the kernel (a named pipe
 * opened by a backend, a hung network file system) holds a libuv thread,
 * and then even process.exit() waits for it forever: only SIGKILL ends such
 * a process, so that is the last resort. The timer is unref'd: a clean
 * shutdown exits on its own before it fires.
 */
function exitDeadline(ms: number, logger: { error(message: string): void }): void {
  setTimeout(() => {
    logger.error(`shutdown did not finish within ${ms} ms; stopping now`);
    process.kill(process.pid, "SIGKILL");
  }, ms).unref();
}
