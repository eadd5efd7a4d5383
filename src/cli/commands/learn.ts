/**
 * `metatools learn --show | --export FILE | --import FILE | --reset`: what
 * search learned from use, listed for a person (or as JSON), moved between
 * deployments, or forgotten. It works where the config keeps it
 * (src/learn/open.ts): the learning file of this config with the memory
 * store (a server running on the same config writes there within seconds,
 * and reads what this command changes), or the Redis or SQLite store. With
 * no config file (or `learn.persist: false`) learning lives in a server's
 * process alone and the command cannot reach it.
 */
import { loadConfig } from "../../config/load.js";
import type { ResolvedConfig } from "../../config/resolved.js";
import { readLearnedFile } from "../../learn/file.js";
import { showLearned, type ShownTerm } from "../../learn/inspect.js";
import { learnedStore, learnedStorePlace, openLearnedKv } from "../../learn/open.js";
import { LOCAL_PRINCIPAL } from "../../security/principal.js";
import { writeFileAtomic } from "../../util/files.js";
import { textTable } from "../../util/table.js";
import { flag, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "learn",
  group: "tune",
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
    json: { ...SHARED.json, help: "with --show: the terms as JSON, for machines" },
  },
  run: learn,
});

/** Terms a person is shown (the most recently taught); --json lists all. */
const SHOWN_TERMS = 100;

export async function learn(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, command.flags);
  const chosen = [values.show === true, values.export !== undefined, values.import !== undefined, values.reset === true].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError("pass one of --show, --export FILE (or - for stdout), --import FILE, --reset");
  if (values.json && !values.show) throw new UsageError("--json goes with --show (--export writes JSON already)");
  const config = loadConfig({ configPath: values.config });
  if (!config.learn) {
    stderr().write("metatools learn: search learning is off in this config (metatools.learn: false)\n");
    return 1;
  }
  const place = learnedStorePlace(config);
  if (place.kind === "process") {
    stderr().write(`metatools learn: ${unreachable(config)}\n`);
    return 1;
  }
  const kv = openLearnedKv(config, config.learn, (message) => stderr().write(`metatools learn: ${message}\n`));
  const store = learnedStore(kv, config.learn);
  const where = place.kind === "file" ? `file ${kv.where}` : `store ${kv.where}`;
  try {
    if (values.show) {
      const settings = { halfLifeMs: config.learn.halfLifeMs, shareAfterPrincipals: config.learn.shareAfterPrincipals };
      const terms = await showLearned(store, LOCAL_PRINCIPAL, Date.now(), settings);
      if (values.json) stdout().json({ where: kv.where, kind: place.kind === "file" ? "file" : kv.kind, terms });
      else stdout().write(`${showText(terms, where, config, Date.now())}\n`);
    } else if (values.reset) {
      await store.reset();
      stdout().write(
        place.kind === "file"
          ? `forgot what search learned (${where}); a server running on this config forgets it within a few seconds\n`
          : `forgot what search learned (${where}); every server sharing it ranks without it within a second\n`,
      );
    } else if (values.import !== undefined) {
      const terms = await store.import(readLearnedFile(values.import), Date.now());
      stdout().write(`imported ${terms} terms from ${values.import} into ${where}\n`);
    } else {
      const file = await store.export(Date.now());
      const text = `${JSON.stringify(file, null, 2)}\n`;
      if (values.export === "-") stdout().write(text);
      else {
        // Terms and tool ids (and queries, when the config keeps them): readable by you alone.
        writeFileAtomic(values.export!, text, 0o600);
        stdout().write(`exported ${Object.keys(file.terms).length} terms to ${values.export}\n`);
      }
    }
    return 0;
  } finally {
    await kv.close();
  }
}

/** Why this command cannot reach what a server learns with this config, and what to change. */
function unreachable(config: ResolvedConfig): string {
  const why = config.file
    ? "metatools.learn.persist is false, so what a server learns with the memory store lives in that server's process alone"
    : "there is no config file, so what a server learns with the memory store lives in that server's process alone (it is kept in a file per config file)";
  return `${why} and this command cannot reach it. Use a config file (metatools init writes one) with metatools.learn.persist true (the default), or set metatools.store.url to redis://… (or sqlite://…) to share it; metatools.learn.seed loads a file at start.`;
}

/** A table for a person: each term's tools, their weight, whose evidence it is, and how long ago it was taught. */
function showText(terms: readonly ShownTerm[], where: string, config: ResolvedConfig, now: number): string {
  const halfLife = Math.round(config.learn!.halfLifeMs / 86_400_000);
  if (!terms.length) return `Nothing learned yet (${where}). Search learns when a search_tools call is followed by a successful run_tool in the same session.`;
  const tools = new Set(terms.flatMap((t) => t.tools.map((tool) => tool.id)));
  const shown = terms.slice(0, SHOWN_TERMS);
  const rows = shown.flatMap((term) =>
    term.tools.map((tool, i) => [i ? "" : term.term, tool.id, tool.weight.toFixed(2), whose(tool), ago(now - Date.parse(tool.taught))]),
  );
  const more = terms.length > shown.length ? `; ${terms.length - shown.length} terms less recently taught are not shown: --json lists them all` : "";
  return [
    `What search learned (${where}): ${terms.length} terms leading to ${tools.size} tools, most recently taught first.`,
    textTable({
      head: ["TERM", "TOOL", "WEIGHT", "WHOSE", "TAUGHT"],
      rows,
      note: `terms are word stems as search analyzes queries; weights rank in your searches and halve every ${halfLife} days${more}. Forget it all: metatools learn --reset`,
    }),
  ].join("\n");
}

function whose(tool: ShownTerm["tools"][number]): string {
  const parts: string[] = [];
  if (tool.own) parts.push("yours");
  if (tool.imported) parts.push("imported");
  if (tool.others.callers) {
    const callers = `${tool.others.callers} other caller${tool.others.callers === 1 ? "" : "s"}`;
    parts.push(tool.others.counted ? callers : `${callers} (not shared with you yet)`);
  }
  return parts.join(" + ") || "—";
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}
