#!/usr/bin/env node
/**
 * The `metatools` command. Each subcommand lives in `commands/`; this file
 * only routes and turns errors into exit codes (2: usage or config, 1: the
 * operation failed, 0: done).
 */
import { startTelemetrySdk } from "../observe/sdk.js";
import { ConfigError, MetatoolsError } from "../util/errors.js";
import { bench } from "./commands/bench.js";
import { describe } from "./commands/describe.js";
import { doctor } from "./commands/doctor.js";
import { evaluate } from "./commands/eval.js";
import { init } from "./commands/init.js";
import { indexTools } from "./commands/index-tools.js";
import { run } from "./commands/run.js";
import { approve } from "./commands/approve.js";
import { search } from "./commands/search.js";
import { serve } from "./commands/serve.js";
import { vectors } from "./commands/vectors.js";
import { UsageError } from "./flags.js";

const COMMANDS: Record<string, { run: (argv: string[]) => Promise<number>; help: string }> = {
  init: { run: init, help: "init [--from claude-desktop|claude-code|cursor|FILE]... [--out FILE] [--force] [--dry-run] [--client C] [--json]   import a client's MCP servers into metatools.json; print how to register metatools there" },
  serve: { run: serve, help: "serve [--config F] [--root DIR] [--http PORT [--host H] [--stateless] [--allow-unauthenticated]]   MCP server on stdio, or Streamable HTTP on /mcp" },
  search: { run: search, help: "search QUERY [--limit N] [--namespace NS] [--tags a,b] [--offset N] [--json]" },
  describe: { run: describe, help: "describe ID [--detail summary|schema|full] [--json]" },
  run: { run: run, help: "run ID --args JSON [--timeout MS] [--cache use|refresh|bypass] [--json]" },
  doctor: { run: doctor, help: "doctor [--json]                         config, backends (status, tools, connect time, quarantined), store, embedder: problems and fixes" },
  eval: { run: evaluate, help: "eval DIR [--mode bm25|semantic|hybrid|all] [--embedder use | --vectors FILE] [--limit K] [--json]" },
  index: { run: indexTools, help: "index [--json]                          embed every tool not yet in the embedding cache, with progress" },
  vectors: { run: vectors, help: "vectors import [--from FILE] [--out FILE] [--words N]   word vectors for semantic search" },
  approve: { run: approve, help: "approve ID... | --all | --list [--json]     pin quarantined tools' current definitions (a person has read them)" },
  bench: { run: bench, help: "bench [--suite all|search|code|exec|http] [--clients N] [--sizes 1000,10000,100000] [--code-files N] [--calls N] [--redis URL] [--vectors FILE] [--json]" },
};

function usage(): string {
  return [
    "usage: metatools <command> [options]",
    "",
    ...Object.values(COMMANDS).map((c) => `  metatools ${c.help}`),
    "",
    "Every command takes --config FILE (default ./metatools.json, or $METATOOLS_CONFIG), --root DIR (the code tools' project root; default the working directory) and --log-level debug|info|warn|error|silent.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 2;
  }
  if (name === "--version" || name === "-v") {
    const { packageVersion } = await import("../version.js");
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`metatools: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
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
      process.stderr.write(`metatools ${name}: ${error.message}\n  usage: metatools ${command.help}\n`);
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
