#!/usr/bin/env node
/**
 * The `metatools` command. Each subcommand lives in `commands/` (found
 * through the generated `command-index.ts`); this file only routes, loading
 * that one command's code, and turns errors into exit codes (2: usage or config, 1: the
 * operation failed, 0: done).
 */
import { startTelemetrySdk } from "../observe/sdk.js";
import { errorMessage, ConfigError, MetatoolsError } from "../util/errors.js";
import { UsageError } from "./flags.js";
import { commandHelp, synopsis } from "./command.js";
import { commandNamed, loadCommand, usage } from "./registry.js";
import { stderr, stdout } from "./output.js";
import { carryFlags } from "./command-line.js";
import { commandFirst, startsServer } from "./argv.js";
import { exitWhenQuiet } from "./exit.js";

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = commandFirst(argv);
  if (!name || name === "--help" || name === "-h" || name === "help") {
    stdout().write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    const { packageVersion } = await import("../util/version.js");
    stdout().write(`${packageVersion()}\n`);
    return 0;
  }
  const entry = commandNamed(name);
  if (!entry) {
    stderr().write(`metatools: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  // A stdio client's handshake is answered before the server's code is loaded, from this launch's last answer.
  if (startsServer(name, rest)) await (await import("./quick-start.js")).quickStart(rest);
  const command = await loadCommand(entry);
  carryFlags(rest);
  if (rest.includes("--help") || rest.includes("-h")) {
    stdout().write(`${commandHelp(command)}\n`);
    return 0;
  }
  const warn = (message: string) => stderr().write(`metatools warn: ${message}\n`);
  const telemetry = await startTelemetrySdk(process.env, { stdoutIsProtocol: name === "serve", warn }).catch((error: unknown) => {
    stderr().write(`metatools: OpenTelemetry export not started: ${errorMessage(error)}\n`);
    return undefined;
  });
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      stderr().write(`metatools ${name}: ${error.message}\n  usage: metatools ${name} ${synopsis(command)}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      stderr().write(`metatools: invalid configuration: ${error.message}\n`);
      return 2;
    }
    if (error instanceof MetatoolsError) {
      stderr().write(`metatools ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await telemetry?.shutdown();
  }
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => exitWhenQuiet(code),
  (error: unknown) => {
    // A person gets the message; the stack, with its local paths, only when they ask for debug output.
    const debug = argv.some((a, i) => a === "--log-level=debug" || (a === "--log-level" && argv[i + 1] === "debug"));
    const text = error instanceof Error ? (debug ? (error.stack ?? error.message) : error.message) : String(error);
    stderr().write(`metatools: internal error: ${text}${debug ? "" : " (run again with --log-level debug for the stack trace)"}\n`);
    process.exitCode = 1;
  },
);
