/**
 * Every `metatools` command: how it is called, what it is for, and its
 * handler. `metatools --help` and docs/reference/cli.md are made from this
 * table, so the two cannot disagree. Each handler is imported when its
 * command runs: a command loads only its own code.
 */

export interface Command {
  name: string;
  /** Arguments and flags after the command's name. */
  usage: string;
  /** One line: what it is for. */
  summary: string;
  run(argv: string[]): Promise<number>;
}

export const COMMANDS: readonly Command[] = [
  {
    name: "init",
    usage: "[--from claude-desktop|claude-code|cursor|FILE]... [--out FILE] [--force] [--dry-run] [--client C] [--json]",
    summary: "import the MCP servers your client runs into metatools.json, and print how to register metatools there",
    run: (argv) => import("./commands/init.js").then((m) => m.init(argv)),
  },
  {
    name: "serve",
    usage: "[--http PORT [--host H] [--stateless] [--allow-unauthenticated]]",
    summary: "the MCP server: on stdio (what clients launch), or Streamable HTTP on /mcp",
    run: (argv) => import("./commands/serve.js").then((m) => m.serve(argv)),
  },
  {
    name: "search",
    usage: "QUERY [--limit N] [--offset N] [--namespace NS]... [--tags a,b] [--mode auto|bm25|semantic|hybrid] [--json]",
    summary: "rank tools for a task, as search_tools does",
    run: (argv) => import("./commands/search.js").then((m) => m.search(argv)),
  },
  {
    name: "describe",
    usage: "ID... [--detail summary|schema|full] [--examples N] [--json]",
    summary: "a tool's docs: schema, notes and examples, as describe_tool gives them",
    run: (argv) => import("./commands/describe.js").then((m) => m.describe(argv)),
  },
  {
    name: "run",
    usage: "ID --args JSON [--timeout MS] [--cache use|refresh|bypass] [--json]",
    summary: "run a tool through metatools (validated, cached, observed), as run_tool does",
    run: (argv) => import("./commands/run.js").then((m) => m.run(argv)),
  },
  {
    name: "doctor",
    usage: "[--json]",
    summary: "one table: config, each backend's status, tools, connect time and quarantined tools, store, embedder, learning; problems with fixes",
    run: (argv) => import("./commands/doctor.js").then((m) => m.doctor(argv)),
  },
  {
    name: "learn",
    usage: "--export FILE|- | --import FILE | --reset",
    summary: "what search learned from use, in the shared store: export it to a file, import one, or forget it",
    run: (argv) => import("./commands/learn.js").then((m) => m.learn(argv)),
  },
  {
    name: "approve",
    usage: "ID... | --all | --list [--json]",
    summary: "let in quarantined tools a person has read (pins their definitions in the lock file)",
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
    usage: "[--json]",
    summary: "embed every tool not yet in the embedding cache, with a progress bar",
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
