/**
 * Every `metatools` command: how it is called, what it is for, and its
 * handler. `metatools --help` and docs/reference/cli.md are made from this
 * table, so the two cannot disagree. Each handler is imported when its
 * command runs: a command loads only its own code.
 */

import { COMMAND_FLAGS, type CommandName, type FlagOptions } from "./command-flags.js";

export interface Command {
  name: CommandName;
  /** Arguments and flags after the command's name: every flag the command parses (its entry in command-flags.ts) is named here. */
  usage: string;
  /** One line: what it is for. */
  summary: string;
  /** Sentences for what the usage line cannot say (what a flag does), shown by `--help` and in the reference. */
  details?: string;
  run(argv: string[]): Promise<number>;
}

/** The flags a command parses beside the common ones. */
export const flagsOf = (command: Command): FlagOptions => COMMAND_FLAGS[command.name];

export const COMMANDS: readonly Command[] = [
  {
    name: "init",
    usage: "[--from claude-desktop|claude-code|cursor|FILE]... [--out FILE] [--force] [--dry-run] [--client C] [--json]",
    summary: "import the MCP servers your client runs into metatools.json, and print how to register metatools there",
    run: (argv) => import("./commands/init.js").then((m) => m.init(argv)),
  },
  {
    name: "serve",
    usage: "[--profile NAME] | [--http PORT [--host H] [--stateless] [--allow-unauthenticated]]",
    summary: "the MCP server: on stdio (what clients launch), or Streamable HTTP on /mcp",
    details:
      "--profile NAME gives the stdio client that profile of metatools.profiles: the tools it sees, the approvals its calls need. Over HTTP a caller's profile comes from its token ({token, profile} in metatools.http.tokens) or the URL path (/mcp/NAME).",
    run: (argv) => import("./commands/serve.js").then((m) => m.serve(argv)),
  },
  {
    name: "search",
    usage: "QUERY [--limit N] [--offset N] [--namespace NS]... [--tags a,b] [--mode auto|bm25|semantic|hybrid] [--refresh] [--json]",
    summary: "rank tools for a task, as search_tools does",
    details:
      "Answers from the snapshot of each server's last tool list without starting any (a server never listed is started); --refresh starts them all and lists their tools again. The hints print metatools commands to paste; --json prints the reply an agent gets.",
    run: (argv) => import("./commands/search.js").then((m) => m.search(argv)),
  },
  {
    name: "describe",
    usage: "ID... [--detail summary|schema|full] [--examples N] [--refresh] [--json]",
    summary: "a tool's docs: schema, notes and examples, as describe_tool gives them",
    details: "Reads the snapshot of the servers' tool lists, as search does; --refresh starts the servers and lists their tools again.",
    run: (argv) => import("./commands/describe.js").then((m) => m.describe(argv)),
  },
  {
    name: "run",
    usage: "ID [--args JSON] [--timeout MS] [--cache use|refresh|bypass] [--out FILE] [--json]",
    summary: "run a tool through metatools (validated, cached, observed), as run_tool does",
    details:
      "--args takes the tool's arguments as one JSON object (default {}), quoted for the shell: --args '{\"path\":\"README.md\"}'. Only the tool's own server is started. A text result (one text, or one text resource) prints as its text; anything else as the JSON an agent gets (--json: the whole reply). " +
      "--out FILE writes the result to FILE instead of stdout: the bytes of a result that is one image, audio clip or binary resource (decoded), the text of one text or one text resource, " +
      "else JSON (the structured content, or every content block); stderr says what was written (kind, bytes, MIME type). A result too large for an agent's reply is still printed or written whole.",
    run: (argv) => import("./commands/run.js").then((m) => m.run(argv)),
  },
  {
    name: "doctor",
    usage: "[--json]",
    summary: "one table: config, each backend's status, tools, connect time and quarantined tools, store, embedder, learning; problems with fixes",
    run: (argv) => import("./commands/doctor.js").then((m) => m.doctor(argv)),
  },
  {
    name: "audit",
    usage: "[--last N] [--principal ID] [--tool GLOB] [--profile NAME] [--json]",
    summary: "the last run_tool calls from the audit trail: who ran which tool, with what outcome (never the arguments' values)",
    details:
      "Reads where the config keeps the trail (metatools.audit): the JSON-lines file of this config, its rotated files included, or the shared Redis store. --last N records (default 20), oldest first; --principal keeps one caller's (a principal or its start, as the table shows it), --tool those of the tools a glob matches (--tool 'github:*'), --profile one profile's. --json prints one record a line, with the arguments' digest.",
    run: (argv) => import("./commands/audit.js").then((m) => m.audit(argv)),
  },
  {
    name: "learn",
    usage: "--show [--json] | --export FILE|- | --import FILE | --reset",
    summary: "what search learned from use: list it, export it to a file, import one, or forget it",
    details:
      "Works where the config keeps it: with the memory store (the default), the learning file of this config in the cache folder (a server running on it writes there within seconds and reads what this command changes); with Redis or SQLite, that store. --show lists each term, the tools it leads to with their weight, whose evidence it is (yours, imported, other callers') and when it was last taught; --json for machines. With no config file, learning lives in a server's process alone and this command cannot reach it.",
    run: (argv) => import("./commands/learn.js").then((m) => m.learn(argv)),
  },
  {
    name: "approve",
    usage: "ID... | ID --hash HASH | --all | --list [--json] | --show ID [--json]",
    summary: "let in quarantined tools a person has read (pins their definitions in the lock file)",
    details:
      "--list lists what is quarantined and why. --show ID prints one quarantined tool for review: the definition pinned before (kept in the cache folder; a pin made by a release that kept only hashes has none) and the one held now, what changed (description by line and word, parameters added, removed or changed in type, requiredness or description, output schema, annotations such as readOnlyHint, title), and what the scanner found; with --json, {id, kind, reason, pinned, current, changes, findings}. Then approve it by its id, with --hash and the hash --show printed: if the backend changed the tool again since, nothing is pinned and you are told to review it again.",
    run: (argv) => import("./commands/approve.js").then((m) => m.approve(argv)),
  },
  {
    name: "auth",
    usage: "login NAME [--timeout S] [--no-browser] | status [NAME]... [--json] | logout NAME",
    summary: "sign in to remote backends that ask for OAuth (opens $BROWSER or the system browser), show sign-ins, sign out; a running server picks changes up",
    run: (argv) => import("./commands/auth.js").then((m) => m.authCommand(argv)),
  },
  {
    name: "index",
    usage: "[--refresh] [--json]",
    summary: "embed every tool not yet in the embedding cache, with a progress bar",
    details:
      "Embeds the tools of the snapshot of each server's last tool list without starting it (a server never listed is started); --refresh starts every server and lists its tools again first. Texts already in the cache are never embedded again.",
    run: (argv) => import("./commands/index-tools.js").then((m) => m.indexTools(argv)),
  },
  {
    name: "vectors",
    usage: "import [--from FILE] [--out FILE] [--words N] [--json]",
    summary: "build a GloVe word-vectors file, an alternative to the built-in embedder",
    run: (argv) => import("./commands/vectors.js").then((m) => m.vectors(argv)),
  },
  {
    name: "eval",
    usage: "DIR [--mode bm25|semantic|hybrid|all] [--embedder builtin|use | --vectors FILE] [--limit K] [--names | --replay [--replay-noise P]] [--json]",
    summary:
      "retrieval quality on a dataset (tools.jsonl + queries.jsonl): hit@k, MRR, nDCG, recall, in the configured mode (hybrid by default) or all three; --names: every tool searched by its name in 8 spellings; --replay: what search learns from use (even queries replayed as history, odd ones measured before and after)",
    run: (argv) => import("./commands/eval.js").then((m) => m.evaluate(argv)),
  },
  {
    name: "bench",
    usage:
      "[--suite all|search|code|exec|http|tokens|soak] [--dataset DIR]... [--vectors FILE] [--report FILE] [--sizes 1000,10000,100000] [--tasks N] [--clients N] [--calls N] [--code-files N] [--runs N] [--redis URL] [--minutes N] [--store sqlite|memory] [--json]",
    summary:
      "benchmarks: search latency, cold start, RSS, run_tool overhead, cache hits, HTTP load, token economics; --report writes the Markdown page with charts; --suite soak (never in all) runs one server for --minutes under churn and judges each resource level or growing",
    run: (argv) => import("./commands/bench.js").then((m) => m.bench(argv)),
  },
];

export const COMMON_FLAGS =
  "Every command takes --config FILE (default ./metatools.json, or $METATOOLS_CONFIG), --root DIR (the code tools' project root; default the working directory) and --log-level debug|info|warn|error|silent.";

/** `metatools NAME --help`: the usage, what it is for, the details, and the flags every command takes. */
export function commandHelp(command: Command): string {
  return [
    `metatools ${command.name} ${command.usage}`,
    `  ${command.summary}`,
    ...(command.details ? ["", ...wrap(command.details, 78).map((line) => `  ${line}`)] : []),
    "",
    "  Also: --config FILE, --root DIR, --log-level debug|info|warn|error|silent (see metatools help).",
  ].join("\n");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

export const EXIT_CODES =
  "Exit codes: 0 done; 1 the operation failed or found problems (the message says what to do); 2 bad usage or an invalid config (the message names the file and the field).";

/** `metatools --help`. */
export function usage(): string {
  return [
    "usage: metatools <command> [options]",
    "",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(9)} ${c.summary}\n  ${" ".repeat(9)} metatools ${c.name} ${c.usage}`),
    "",
    COMMON_FLAGS,
    EXIT_CODES,
    "Colour only on a terminal (NO_COLOR turns it off, FORCE_COLOR on). Logs go to stderr; stdout carries the result, or the protocol under serve.",
  ].join("\n");
}
