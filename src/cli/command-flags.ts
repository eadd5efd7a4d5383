/**
 * The flags each command parses beside the common ones (`flags.ts`),
 * declared once: the command parses with its entry, and its usage line
 * (`registry.ts`, shown by `--help` and in docs/reference/cli.md) names
 * each of them (test/unit/cli/flags.test.ts holds the two together).
 * Data only, so the command table can hold it without loading a command.
 */
import type { ParseArgsConfig } from "node:util";

export type FlagOptions = NonNullable<ParseArgsConfig["options"]>;

const json = { type: "boolean" } as const;

export const COMMAND_FLAGS = {
  init: {
    from: { type: "string", multiple: true },
    out: { type: "string" },
    force: { type: "boolean" },
    "dry-run": { type: "boolean" },
    client: { type: "string" },
    json,
  },
  serve: {
    http: { type: "string" },
    host: { type: "string" },
    stateless: { type: "boolean" },
    "allow-unauthenticated": { type: "boolean" },
    profile: { type: "string" },
  },
  search: {
    limit: { type: "string" },
    offset: { type: "string" },
    namespace: { type: "string", multiple: true },
    tags: { type: "string" },
    mode: { type: "string" },
    refresh: { type: "boolean" },
    json,
  },
  describe: { detail: { type: "string" }, examples: { type: "string" }, refresh: { type: "boolean" }, json },
  run: { args: { type: "string" }, timeout: { type: "string" }, cache: { type: "string" }, out: { type: "string" }, json },
  doctor: { json },
  audit: { last: { type: "string" }, principal: { type: "string" }, tool: { type: "string" }, profile: { type: "string" }, json },
  learn: { show: { type: "boolean" }, export: { type: "string" }, import: { type: "string" }, reset: { type: "boolean" }, json },
  approve: { all: { type: "boolean" }, list: { type: "boolean" }, show: { type: "string" }, hash: { type: "string" }, json },
  auth: { timeout: { type: "string" }, "no-browser": { type: "boolean" }, json },
  index: { refresh: { type: "boolean" }, json },
  vectors: { from: { type: "string" }, out: { type: "string" }, words: { type: "string" }, json },
  eval: {
    mode: { type: "string" },
    limit: { type: "string" },
    vectors: { type: "string" },
    embedder: { type: "string" },
    names: { type: "boolean" },
    replay: { type: "boolean" },
    "replay-noise": { type: "string" },
    json,
  },
  bench: {
    sizes: { type: "string" },
    runs: { type: "string" },
    "code-files": { type: "string" },
    suite: { type: "string" },
    calls: { type: "string" },
    redis: { type: "string" },
    vectors: { type: "string" },
    clients: { type: "string" },
    dataset: { type: "string", multiple: true },
    tasks: { type: "string" },
    report: { type: "string" },
    minutes: { type: "string" },
    store: { type: "string" },
    json,
  },
} as const satisfies Record<string, FlagOptions>;

export type CommandName = keyof typeof COMMAND_FLAGS;
