/**
 * Every `metatools` command, declared once: what it is for, each flag it
 * parses (name, type, value, help) and its handler. The handler parses with
 * `COMMANDS.NAME.flags`; `metatools --help`, `metatools NAME --help` and
 * docs/reference/cli.md are made from the same entry. Data only: each
 * handler is imported when its command runs, so a command loads only its
 * own code, and `--help` none.
 */
import { SUITES } from "../bench/suites.js";
import type { SearchMode } from "../config/resolved.js";
import { EVAL_MODES } from "../eval/modes.js";
import { CACHE_MODES } from "../exec/cache.js";
import { DETAIL_LEVELS } from "../meta/tool-doc.js";
import { commonFlags, defineCommand, EXIT_CODES, synopsis, type Command } from "./command.js";
import { everyOf, flag, SHARED } from "./flags.js";
import { CLIENTS } from "./init/clients.js";

const { json, refresh } = SHARED;
const SEARCH_MODES = everyOf<SearchMode>()(["auto", "bm25", "semantic", "hybrid"]);

export const COMMANDS = {
  init: defineCommand({
    summary: "import the MCP servers your client runs into metatools.json, and print how to register metatools there",
    flags: {
      from: flag.repeatable("FILE", "where to import from: a client's config, or any file with mcpServers (default: every client's found)", CLIENTS),
      out: flag.string("FILE", "the file to write (default --config, else ./metatools.json)"),
      force: flag.boolean("replace the file if it exists"),
      "dry-run": flag.boolean("print the file instead of writing it (literal secrets masked)"),
      client: flag.oneOf(CLIENTS, "say how to register metatools in this client (default: those imported from)"),
      json,
    },
    run: (argv): Promise<number> => import("./commands/init.js").then((m) => m.init(argv)),
  }),
  serve: defineCommand({
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
    run: (argv): Promise<number> => import("./commands/serve.js").then((m) => m.serve(argv)),
  }),
  search: defineCommand({
    summary: "rank tools for a task, as search_tools does",
    args: "QUERY",
    details:
      "Answers from the snapshot of each server's last tool list without starting any (a server never listed is started). The hints print metatools commands to paste; --json prints the reply an agent gets.",
    flags: {
      limit: flag.int("N", 1, "at most N tools"),
      offset: flag.int("N", 0, "skip the first N (the next page)"),
      namespace: flag.repeatable("NS", "only the tools of this namespace"),
      tags: flag.string("a,b", "only tools with every one of these tags"),
      mode: flag.oneOf(SEARCH_MODES, "how to rank (default metatools.search.mode)"),
      refresh,
      json,
    },
    run: (argv): Promise<number> => import("./commands/search.js").then((m) => m.search(argv)),
  }),
  describe: defineCommand({
    summary: "a tool's docs: schema, notes and examples, as describe_tool gives them",
    args: "ID...",
    details: "Reads the snapshot of the servers' tool lists, as search does.",
    flags: {
      detail: flag.oneOf(DETAIL_LEVELS, "how much: what it is, how to call it (the default), or that and its notes and examples"),
      examples: flag.int("N", 0, "at most N examples"),
      refresh,
      json,
    },
    run: (argv): Promise<number> => import("./commands/describe.js").then((m) => m.describe(argv)),
  }),
  run: defineCommand({
    summary: "run a tool through metatools (validated, cached, observed), as run_tool does",
    args: "ID",
    details:
      "Only the tool's own server is started. A text result (one text, or one text resource) prints as its text; anything else as the JSON an agent gets (--json: the whole reply). A result too large for an agent's reply is still printed or written whole.",
    flags: {
      args: flag.string("JSON", `the tool's arguments as one JSON object (default {}), quoted for the shell: --args '{"path":"README.md"}'`),
      timeout: flag.int("MS", 1, "give up after MS milliseconds"),
      cache: flag.oneOf(CACHE_MODES, "use a cached result, or refresh it, or bypass the cache"),
      out: flag.string(
        "FILE",
        "writes the result to FILE instead of stdout: the bytes of a result that is one image, audio clip or binary resource (decoded), the text of one text or one text resource, else JSON (the structured content, or every content block); stderr says what was written (kind, bytes, MIME type)",
      ),
      json,
    },
    run: (argv): Promise<number> => import("./commands/run.js").then((m) => m.run(argv)),
  }),
  doctor: defineCommand({
    summary: "one table: config, each backend's status, tools, connect time and quarantined tools, store, embedder, learning; problems with fixes",
    flags: { json },
    run: (argv): Promise<number> => import("./commands/doctor.js").then((m) => m.doctor(argv)),
  }),
  audit: defineCommand({
    summary: "the last run_tool calls from the audit trail: who ran which tool, with what outcome (never the arguments' values)",
    details:
      "Reads where the config keeps the trail (metatools.audit): the JSON-lines file of this config, its rotated files included, or the shared Redis store. Records are listed oldest first.",
    flags: {
      last: flag.int("N", 1, "the last N records (default 20)"),
      principal: flag.string("ID", "only one caller's: a principal, or its start as the table shows it"),
      tool: flag.string("GLOB", "only those of the tools a glob matches (--tool 'github:*')"),
      profile: flag.string("NAME", "only one profile's"),
      json: { ...json, help: "one record a line, with the arguments' digest" },
    },
    run: (argv): Promise<number> => import("./commands/audit.js").then((m) => m.audit(argv)),
  }),
  learn: defineCommand({
    summary: "what search learned from use: list it, export it to a file, import one, or forget it",
    usage: (f) => `${f.show} [${f.json}] | ${f.export} | ${f.import} | ${f.reset}`,
    details:
      "Works where the config keeps it: with the memory store (the default), the learning file of this config in the cache folder (a server running on it writes there within seconds and reads what this command changes); with Redis or SQLite, that store. With no config file, learning lives in a server's process alone and this command cannot reach it.",
    flags: {
      show: flag.boolean(
        "list each term, the tools it leads to with their weight, whose evidence it is (yours, imported, other callers') and when it was last taught",
      ),
      export: flag.string("FILE|-", "write it all to FILE (- for stdout)"),
      import: flag.string("FILE", "add what a file that --export wrote holds"),
      reset: flag.boolean("forget it all"),
      json: { ...json, help: "with --show: the terms as JSON, for machines" },
    },
    run: (argv): Promise<number> => import("./commands/learn.js").then((m) => m.learn(argv)),
  }),
  approve: defineCommand({
    summary: "let in quarantined tools a person has read (pins their definitions in the lock file)",
    usage: (f) => `ID... | ID ${f.hash} | ${f.all} | ${f.list} [${f.json}] | ${f.show} [${f.json}]`,
    details:
      "Review a tool with --show, then approve it by its id, with --hash and the hash --show printed: if the backend changed the tool again since, nothing is pinned and you are told to review it again.",
    flags: {
      hash: flag.string("HASH", "approve only the definition with this hash (approve --show prints it): the one that was reviewed"),
      all: flag.boolean("approve every quarantined tool"),
      list: flag.boolean("list what is quarantined and why"),
      show: flag.string(
        "ID",
        "print one quarantined tool for review: the definition pinned before (kept in the cache folder; a pin made by a release that kept only hashes has none) and the one held now, what changed (description by line and word, parameters added, removed or changed in type, requiredness or description, output schema, annotations such as readOnlyHint, title), and what the scanner found",
      ),
      json: { ...json, help: "with --list: {quarantined}; with --show: {id, kind, reason, pinned, current, changes, findings}" },
    },
    run: (argv): Promise<number> => import("./commands/approve.js").then((m) => m.approve(argv)),
  }),
  auth: defineCommand({
    summary: "sign in to remote backends that ask for OAuth (opens $BROWSER or the system browser), show sign-ins, sign out; a running server picks changes up",
    usage: (f) => `login NAME [${f.timeout}] [${f["no-browser"]}] | status [NAME]... [${f.json}] | logout NAME`,
    flags: {
      timeout: flag.int("S", 1, "login: how long to wait for the browser, in seconds (default 300)"),
      "no-browser": flag.boolean("login: print the sign-in URL without opening a browser"),
      json,
    },
    run: (argv): Promise<number> => import("./commands/auth.js").then((m) => m.authCommand(argv)),
  }),
  index: defineCommand({
    summary: "embed every tool not yet in the embedding cache, with a progress bar",
    details:
      "Embeds the tools of the snapshot of each server's last tool list without starting it (a server never listed is started). Texts already in the cache are never embedded again.",
    flags: { refresh, json },
    run: (argv): Promise<number> => import("./commands/index-tools.js").then((m) => m.indexTools(argv)),
  }),
  vectors: defineCommand({
    summary: "build a GloVe word-vectors file, an alternative to the built-in embedder",
    args: "import",
    flags: {
      from: flag.string("FILE", "the GloVe JSON to read (default: that of the wink package, found from the working directory)"),
      out: flag.string("FILE", "the file to write (default: glove-100d.mtvec in the cache folder)"),
      words: flag.int("N", 1000, "keep the N most frequent words (default 100000)"),
      json,
    },
    run: (argv): Promise<number> => import("./commands/vectors.js").then((m) => m.vectors(argv)),
  }),
  eval: defineCommand({
    summary:
      "retrieval quality on a dataset (tools.jsonl + queries.jsonl): hit@k, MRR, nDCG, recall, in the configured mode (hybrid by default) or all three; --names: every tool searched by its name in 8 spellings; --replay: what search learns from use (even queries replayed as history, odd ones measured before and after)",
    usage: (f) => `DIR [${f.mode}] [${f.embedder} | ${f.vectors}] [${f.limit}] [${f.names} | ${f.replay} [${f["replay-noise"]}]] [${f.json}]`,
    flags: {
      mode: flag.oneOf([...EVAL_MODES, "all"], "the ranking to measure, or all three (default: the config's)"),
      embedder: flag.oneOf(["builtin", "use"], "embed with the table shipped with metatools, or the Universal Sentence Encoder (default: the config's)"),
      vectors: flag.string("FILE", "embed with this word-vectors file (metatools vectors import builds one)"),
      limit: flag.int("K", 1, "measure on K queries spread over the file (default all)"),
      names: flag.boolean("search every tool by its name, in 8 spellings"),
      replay: flag.boolean("replay even queries as history, measure odd ones before and after"),
      "replay-noise": flag.string("P", "with --replay: the share of replayed runs that go to a wrong tool, 0 to 1 (default 0)"),
      json,
    },
    run: (argv): Promise<number> => import("./commands/eval.js").then((m) => m.evaluate(argv)),
  }),
  bench: defineCommand({
    summary:
      "benchmarks: search latency, cold start, RSS, run_tool overhead, cache hits, HTTP load, token economics; --report writes the Markdown page with charts; --suite soak (never in all) runs one server for --minutes under churn and judges each resource level or growing",
    flags: {
      suite: flag.oneOf(["all", ...SUITES], "the suites to run (default all: every one but soak)"),
      dataset: flag.repeatable("DIR", "a retrieval set (tools.jsonl and queries.jsonl) to measure too"),
      vectors: flag.string("FILE", "a word-vectors file for the hybrid rows (default the built-in table)"),
      report: flag.string("FILE", "write the Markdown page, with its charts beside it"),
      sizes: flag.string("1000,10000,100000", "the catalog sizes search latency is measured at"),
      tasks: flag.int("N", 1, "token economics: the number of tasks (default 200)"),
      clients: flag.int("N", 1, "HTTP load and soak: concurrent clients (default 50; soak 12)"),
      calls: flag.int("N", 10, "run_tool and HTTP calls measured (default 300 and 200)"),
      "code-files": flag.int("N", 1, "the code suite's project size, in files (default 5000)"),
      runs: flag.int("N", 1, "repeats of each measurement (default 3)"),
      redis: flag.string("URL", "also measure with this Redis as the store"),
      minutes: flag.string("N", "soak: how long, in minutes (default 10)"),
      store: flag.oneOf(["sqlite", "memory"], "soak: where outputs are kept (default sqlite when @keyv/sqlite is installed)"),
      json,
    },
    run: (argv): Promise<number> => import("./commands/bench.js").then((m) => m.bench(argv)),
  }),
};

export type CommandName = keyof typeof COMMANDS;

/** The commands in the order help lists them, each with its name. */
export function commandList(): Command[] {
  return Object.entries(COMMANDS).map(([name, spec]) => ({ ...spec, name }) as Command);
}

export function commandNamed(name: string): Command | undefined {
  return Object.hasOwn(COMMANDS, name) ? ({ ...COMMANDS[name as CommandName], name } as Command) : undefined;
}

/** `metatools --help`. */
export function usage(): string {
  return [
    "usage: metatools <command> [options]",
    "",
    ...commandList().map((c) => `  ${c.name.padEnd(9)} ${c.summary}\n  ${" ".repeat(9)} metatools ${c.name} ${synopsis(c)}`),
    "",
    commonFlags(),
    EXIT_CODES,
    "Colour only on a terminal (NO_COLOR turns it off, FORCE_COLOR on). Logs go to stderr; stdout carries the result, or the protocol under serve.",
  ].join("\n");
}
