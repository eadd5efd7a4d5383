#!/usr/bin/env node
/**
 * The `metatools` command. Each subcommand lives in `commands/`; this file
 * only routes and turns errors into exit codes (2: usage or config, 1: the
 * operation failed, 0: done).
 */
import { startTelemetrySdk } from "../observe/sdk.js";
import { ConfigError, MetatoolsError } from "../util/errors.js";
import { UsageError } from "./flags.js";
import { COMMANDS, usage } from "./registry.js";

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    const { packageVersion } = await import("../util/version.js");
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`metatools: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`metatools ${name} ${command.usage}\n  ${command.summary}\n`);
    return 0;
  }
  const warn = (message: string) => process.stderr.write(`metatools warn: ${message}\n`);
  const telemetry = await startTelemetrySdk(process.env, { stdoutIsProtocol: name === "serve", warn }).catch((error: unknown) => {
    process.stderr.write(`metatools: OpenTelemetry export not started: ${error instanceof Error ? error.message : String(error)}\n`);
    return undefined;
  });
  try {
    return await command.run(rest);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`metatools ${name}: ${error.message}\n  usage: metatools ${name} ${command.usage}\n`);
      return 2;
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`metatools: invalid configuration: ${error.message}\n`);
      return 2;
    }
    if (error instanceof MetatoolsError) {
      process.stderr.write(`metatools ${name}: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await telemetry?.shutdown();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`metatools: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
