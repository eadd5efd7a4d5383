import { resolve } from "node:path";
import { loadConfig } from "../../config/load.js";
import type { EmbedderConfig, SearchMode } from "../../config/resolved.js";
import { SPELLINGS } from "../../eval/names.js";
import { replayDataset, type ReplayResult } from "../../eval/replay.js";
import type { Metrics } from "../../eval/metrics.js";
import { EVAL_MODES, evaluateDataset, evaluateNames, type EvalMode, type EvalOptions } from "../../eval/run.js";
import { flag, oneOf, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { ProgressView } from "../progress.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "eval",
  group: "measure",
  summary:
    "retrieval quality on a dataset (queries.jsonl, and tools.jsonl or a metatools.json of servers to start): hit@k, MRR, nDCG, recall, in the configured mode (hybrid by default) or all three; --names: every tool searched by its name in 8 spellings; --replay: what search learns from use (even queries replayed as history, odd ones measured before and after)",
  usage: (f) =>
    `DIR [${f.mode}] [${f.embedder} | ${f.vectors}] [${f.limit}] [${f.misses}] [${f["no-catalog"]}] [${f["no-server-words"]}] [${f.names} | ${f.replay} [${f["replay-noise"]}]] [${f.json}]`,
  flags: {
    mode: flag.oneOf([...EVAL_MODES, "all"], "the ranking to measure, or all three (default: the config's)"),
    embedder: flag.oneOf(
      ["builtin", "use"],
      "embed with the table shipped with metatools, or the Universal Sentence Encoder (default: the config's, which may name an embedding service)",
    ),
    vectors: flag.string("FILE", "embed with this word-vectors file (metatools vectors import builds one)"),
    limit: flag.int("K", 1, "measure on K queries spread over the file (default all)"),
    misses: flag.int("N", 1, "list the N worst failed queries per mode (the relevant tool not first): what was expected, where it came, and the top 3"),
    "no-catalog": flag.boolean("a set of servers (metatools.json): leave the curated catalogs out, to see what they add"),
    "no-server-words": flag.boolean("leave out what servers say about themselves (instructions, serverInfo, search hints), to see what it adds"),
    names: flag.boolean("search every tool by its name, in 8 spellings"),
    replay: flag.boolean("replay even queries as history, measure odd ones before and after"),
    "replay-noise": flag.string("P", "with --replay: the share of replayed runs that go to a wrong tool, 0 to 1 (default 0)"),
    json: SHARED.json,
  },
  run: evaluate,
});

/** What a search gets by default: the config's mode, auto being hybrid with an embedder (as the engine decides once tools are embedded). */
function defaultMode(mode: SearchMode, embedder: EmbedderConfig | undefined): EvalMode {
  if (mode !== "auto") return mode;
  return embedder ? "hybrid" : "bm25";
}

export async function evaluate(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  const flags = command.flags;
  if (positionals.length !== 1) throw new UsageError("name one dataset folder (holding queries.jsonl, and tools.jsonl or a metatools.json)");
  const requested = values.mode === undefined ? undefined : oneOf(values.mode, "mode", flags.mode.values);
  // Embedders --embedder names; word vectors of one's own come with --vectors FILE.
  const chosen = values.embedder === undefined ? undefined : flags.embedder.values.find((e) => e === values.embedder);
  if (values.embedder !== undefined && !chosen) {
    throw new UsageError(
      `--embedder takes builtin (the table shipped with metatools) or use (the Universal Sentence Encoder), got "${values.embedder}"; word vectors come with --vectors FILE`,
    );
  }
  if (values.embedder && values.vectors) throw new UsageError("pass --embedder or --vectors FILE, not both");
  // The embedder: --embedder or --vectors, else the config's (metatools.json or --config; built-in unless it says false).
  const config = loadConfig({ configPath: values.config });
  const embedder: EmbedderConfig | undefined = chosen
    ? { type: chosen }
    : values.vectors
      ? { type: "static", vectors: resolve(values.vectors) }
      : config.search.embedder;
  let modes: readonly EvalMode[] = requested === "all" ? EVAL_MODES : [requested ?? defaultMode(config.search.mode, embedder)];
  if (requested === "all" && !embedder) {
    stderr().write("metatools eval: skipping semantic, hybrid: metatools.search.embedder is false (pass --embedder builtin or use, or --vectors FILE)\n");
    modes = ["bm25"];
  }
  if (values.names)
    return names(resolve(positionals[0]!), modes, { embedder: embedder ?? false, embeddingCache: config.search.embeddingCache }, values.json ?? false);
  const view = new ProgressView(process.stderr);
  const options: EvalOptions = {
    sample: values.limit,
    embedder: embedder ?? false,
    embeddingCache: config.search.embeddingCache,
    fusion: config.search.fusion,
    misses: values.misses,
    catalog: !values["no-catalog"],
    serverWords: !values["no-server-words"],
    onProgress: (stage, done, total) =>
      view.update(
        stage === "embedding" ? "embedding tools" : `${stage} queries`,
        done,
        total,
        stage === "embedding" ? `embedded ${total} tools` : `${stage}: ${total} queries`,
      ),
  };
  if (values["replay-noise"] !== undefined && !values.replay) throw new UsageError("--replay-noise goes with --replay");
  if (values.replay) {
    const noise = values["replay-noise"] === undefined ? 0 : Number(values["replay-noise"]);
    if (!(noise >= 0 && noise <= 1))
      throw new UsageError(`--replay-noise takes a share between 0 and 1 (0.3 = 30% of runs to a wrong tool), got "${values["replay-noise"]}"`);
    const replayed = await replayDataset(resolve(positionals[0]!), modes, { ...options, noise });
    view.finish();
    return printReplay(replayed, values.json ?? false);
  }
  const results = await evaluateDataset(resolve(positionals[0]!), modes, options);
  view.finish();
  if (values.json) {
    stdout().json(results);
    return 0;
  }
  const columns = ["hit@1", "hit@5", "hit@10", "mrr@10", "ndcg@10", "recall@10"] as const;
  // A set with a `split` field: each part on a row of its own, under its mode.
  const width = Math.max(9, ...Object.values(results).flatMap((m) => Object.keys(m.splits ?? {}).map((split) => split.length + 4)));
  const lines = [`${"mode".padEnd(width)}${columns.map((c) => c.padStart(10)).join("")}   queries  tools`];
  const row = (label: string, m: Metrics) =>
    `${label.padEnd(width)}${columns.map((c) => m[c].toFixed(4).padStart(10)).join("")}   ${String(m.queries).padStart(7)}  ${m.tools}`;
  for (const [mode, m] of Object.entries(results)) {
    lines.push(row(mode, m));
    for (const [split, s] of Object.entries(m.splits ?? {})) lines.push(row(`  ${split}`, s));
  }
  if (Object.values(results).some((m) => m.map)) lines.push("");
  for (const [mode, m] of Object.entries(results)) {
    if (!m.map) continue;
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    lines.push(
      `map (${mode}): shown when unsure, for ${pct(m.map.shown)} of queries; the tool in the top 10 for ${pct(m.map.inTop10)}, in the top 10 or the map for ${pct(m.map.inTop10OrMap)}; about ${m.map.tokensWhenShown} tokens when shown`,
    );
  }
  for (const [mode, m] of Object.entries(results)) {
    if (!m.misses) continue;
    lines.push("", `${mode}: ${m.misses.length ? `the ${m.misses.length} worst of the queries whose tool was not first` : "every query's tool came first"}`);
    for (const miss of m.misses)
      lines.push(
        `  ${miss.id} "${miss.query}"\n    expected ${miss.expected.join(" or ")} (${miss.rank === undefined ? "not in the top 10" : `rank ${miss.rank}`}); top: ${miss.top.join(", ") || "nothing"}`,
      );
  }
  stdout().write(`${lines.join("\n")}\n`);
  return 0;
}

/** With and without the replayed history, per mode, on the measured half. */
function printReplay(results: Partial<Record<EvalMode, ReplayResult>>, json: boolean): number {
  if (json) {
    stdout().json(results);
    return 0;
  }
  const columns = ["hit@1", "hit@5", "hit@10", "mrr@10", "ndcg@10"] as const;
  const lines = [`${"mode".padEnd(9)}${"history".padEnd(10)}${columns.map((c) => c.padStart(10)).join("")}   queries`];
  for (const [mode, r] of Object.entries(results)) {
    for (const [label, m] of [
      ["none", r.without],
      ["replayed", r.with],
    ] as const) {
      lines.push(`${mode.padEnd(9)}${label.padEnd(10)}${columns.map((c) => m[c].toFixed(4).padStart(10)).join("")}   ${String(m.queries).padStart(7)}`);
    }
    const lift = columns.map((c) => `${c} ${((r.with[c] - r.without[c]) * 100).toFixed(1)}`).join(", ");
    lines.push(`${"".padEnd(9)}lift (points): ${lift}; ${r.replayed} queries replayed as history, ${r.wrong} of their runs to a wrong tool`);
  }
  stdout().write(`${lines.join("\n")}\n`);
  return 0;
}

/** The exact-name check per mode: the share of tools found first by each spelling of their name. */
async function names(dir: string, modes: readonly EvalMode[], options: Pick<EvalOptions, "embedder" | "embeddingCache">, json: boolean): Promise<number> {
  const results = Object.fromEntries(await Promise.all(modes.map(async (mode) => [mode, await evaluateNames(dir, mode, options)] as const)));
  if (json) {
    stdout().json(results);
    return 0;
  }
  const lines = [`${"spelling".padEnd(22)}${modes.map((m) => m.padStart(10)).join("")}`];
  for (const spelling of SPELLINGS) lines.push(`${spelling.padEnd(22)}${modes.map((m) => results[m]!.bySpelling[spelling].toFixed(4).padStart(10)).join("")}`);
  lines.push(
    `${"all".padEnd(22)}${modes.map((m) => results[m]!.first.toFixed(4).padStart(10)).join("")}   (${results[modes[0]!]!.queries} queries over ${results[modes[0]!]!.tools} tools)`,
  );
  for (const mode of modes)
    for (const miss of results[mode]!.misses) lines.push(`miss (${mode}): "${miss.query}" → ${miss.got ?? "nothing"}, not ${miss.expected}`);
  stdout().write(`${lines.join("\n")}\n`);
  return 0;
}
