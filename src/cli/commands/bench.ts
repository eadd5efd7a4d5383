/**
 * `metatools bench`: runs the suites, prints each as a table (or the report
 * as JSON), and with `--report FILE` writes the Markdown page and its charts.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, relative, resolve } from "node:path";
import { writeMarkdownReport } from "../../bench/markdown.js";
import { DEFAULT_SUITES, runBench, SUITES, type Suite } from "../../bench/suite.js";
import { reportSections } from "../../bench/tables.js";
import { textTable } from "../../util/table.js";
import { type COMMON, flag, oneOf, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "bench",
  group: "measure",
  summary:
    "benchmarks: search latency, cold start, RSS, run_tool overhead, cache hits, HTTP load, token economics, programs against step by step; --report writes the Markdown page with charts; --suite soak (never in all) runs one server for --minutes under churn and judges each resource level or growing",
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
    json: SHARED.json,
  },
  run: bench,
});

export async function bench(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, command.flags);
  const suite = values.suite ?? "all";
  if (suite !== "all" && !SUITES.includes(suite as Suite)) throw new UsageError(`--suite takes all, ${SUITES.join(", ")}, got "${suite}"`);
  const calls = values.calls;
  const sizes = (values.sizes ?? "1000,10000,100000").split(",").map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new UsageError(`--sizes takes whole numbers, e.g. 1000,10000`);
  // Hybrid rows embed with the built-in table unless --vectors names a word-vectors file.
  const vectorsFile = values.vectors ? resolve(values.vectors) : undefined;
  if (vectorsFile && !existsSync(vectorsFile)) throw new UsageError(`--vectors: ${vectorsFile} not found; build it with \`metatools vectors import\``);
  // The soak only: how long, and where outputs are kept (sqlite: counted on disk; memory: the default deployment's LRU).
  const minutes = values.minutes === undefined ? 10 : Number(values.minutes);
  if (!(minutes > 0) || minutes > 24 * 60) throw new UsageError(`--minutes takes a number of minutes above 0, e.g. 1 or 30, got "${values.minutes}"`);
  const store = values.store === undefined ? (sqliteInstalled() ? "sqlite" : "memory") : oneOf(values.store, "store", command.flags.store.values);
  if (store === "sqlite" && !sqliteInstalled())
    throw new UsageError("--store sqlite needs @keyv/sqlite, an optional engine: npm ci --workspaces --include-workspace-root installs it");
  const datasets = (values.dataset ?? []).map((d) => resolve(d));
  for (const d of datasets)
    if (!existsSync(resolve(d, "tools.jsonl"))) throw new UsageError(`--dataset: ${d} has no tools.jsonl (a retrieval set: tools.jsonl and queries.jsonl)`);

  const report = await runBench(
    {
      suites: new Set(suite === "all" ? DEFAULT_SUITES : [suite as Suite]),
      sizes,
      runs: values.runs ?? 3,
      codeFiles: values["code-files"] ?? 5000,
      calls: calls ?? 300,
      clients: values.clients ?? 50,
      httpCalls: calls ?? 200,
      redisUrl: values.redis,
      vectorsFile,
      datasets,
      tasks: values.tasks ?? 200,
      soak: { minutes, clients: values.clients ?? 12, store },
    },
    (line) => stderr().write(`bench: ${line}\n`),
  );
  if (values.report) {
    const file = resolve(values.report);
    const written = writeMarkdownReport(file, report, reproduce(argv, file));
    stderr().write(`bench: wrote ${written.map((f) => relative(process.cwd(), f)).join(", ")}\n`);
  }
  if (values.json) {
    stdout().json(report);
    return 0;
  }
  stdout().write(
    `${reportSections(report)
      .map((s) => `${s.title}\n${textTable(s.table)}`)
      .join("\n\n")}\n`,
  );
  return 0;
}

/** Flags whose values are this machine's (paths, URLs with credentials): the regenerating command shows placeholders for them. */
const PLACEHOLDERS: { [F in `--${keyof typeof command.flags | keyof typeof COMMON}`]?: (value: string) => string } = {
  "--dataset": (v) => `path/to/${basename(resolve(v))}`,
  "--vectors": () => "path/to/glove-100d.mtvec",
  "--redis": () => "redis://HOST:6379",
  "--config": () => "path/to/metatools.json",
  "--root": () => "path/to/project",
};

/** The command line that regenerates the report: the report path relative to the working directory, never this machine's paths or secrets. */
function reproduce(argv: string[], file: string): string {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const takesValue = flag === "--report" || flag in PLACEHOLDERS;
    const value = inline ?? (takesValue ? (argv[++i] ?? "") : undefined);
    if (flag === "--report") args.push(flag, relative(process.cwd(), file));
    else if (flag in PLACEHOLDERS) args.push(flag, PLACEHOLDERS[flag as keyof typeof PLACEHOLDERS]!(value ?? ""));
    else args.push(argv[i]!);
  }
  return `npm run bench -- ${args.join(" ")}`;
}

/** Whether the SQLite store's package is installed (an optional engine: the quick start's npm ci leaves it out; the soak then keeps outputs in memory). */
function sqliteInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve("@keyv/sqlite");
    return true;
  } catch {
    return false;
  }
}
