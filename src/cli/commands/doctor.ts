/**
 * `metatools doctor`: one screen that says whether metatools will work and,
 * when not, what to do. Exit 0: healthy; 1: problems found (a server whose
 * entry cannot be used as written is one: needs_config, with the fix, the
 * others checked as usual); 2: the config file itself is invalid (the
 * message names the file and field).
 */
import { settlesWithin } from "../../util/abort.js";
import { ConfigError } from "../../util/errors.js";
import { redactDeep } from "../../util/redact.js";
import { diagnose, type DoctorReport } from "../doctor.js";
import { logLevel, parseFlags, SHARED } from "../flags.js";
import { defineCommand } from "../command.js";
import { withApp } from "../open.js";
import { styleFor, type Style } from "../style.js";
import { textTable } from "../../util/table.js";
import { kindLabel } from "../../model/transport-kinds.js";
import { stdout } from "../output.js";

export const command = defineCommand({
  name: "doctor",
  group: "start",
  summary: "one table: config, each backend's status, tools, connect time and quarantined tools, store, embedder, learning; problems with fixes",
  flags: { json: SHARED.json },
  run: doctor,
});

export async function doctor(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, command.flags);
  const level = logLevel(values["log-level"], "silent");
  const style = styleFor(process.stdout);
  const invalid = (error: unknown): number => {
    if (!(error instanceof ConfigError)) throw error;
    if (values.json)
      stdout().write(
        `${JSON.stringify({ config: { ok: false, error: error.message }, problems: [{ subject: "config", problem: error.message, fix: "correct the field named, then run metatools doctor again" }] }, null, 2)}\n`,
      );
    else stdout().write(`${"config".padEnd(10)} ${style.bad("✗")} ${error.message}\n`);
    return 2;
  };
  try {
    // Backends' own errors are in the report; the log would say them twice. An invalid config, catalog or lock file is found as the app is built.
    return await withApp(values, level, async (app) => {
      // A fast embedder (the built-in one) finishes in well under a second; a slow one is reported as still embedding.
      await settlesWithin(app.search.whenIdle(), 3000);
      // Errors and command lines can quote secrets from the environment: every string of the report is redacted before the table shortens any.
      const report = redactDeep(await diagnose(app), app.redact);
      if (values.json) stdout().json(report);
      else stdout().write(`${render(report, style)}\n`);
      return report.problems.length ? 1 : 0;
    });
  } catch (error) {
    return invalid(error);
  }
}

export function render(report: DoctorReport, style: Style): string {
  const mark = { ok: style.ok("✓"), bad: style.bad("✗"), off: style.dim("–") };
  const { config } = report;
  const lines = [
    `${"config".padEnd(10)} ${mark.ok} ${config.file ?? "no config file: built-in tools only (see metatools init)"}: ${config.backends} backend${config.backends === 1 ? "" : "s"}${config.codeRoot ? `, code tools over ${config.codeRoot}` : ", code tools off"}`,
    "",
  ];
  const statusStyle = (status: string) =>
    status === "ready" || status === "disabled"
      ? style.ok
      : ["quarantined", "connecting", "reconnecting", "needs_login", "needs_config"].includes(status)
        ? style.warn
        : style.bad;
  const table = {
    head: ["backend", "kind", "status", "tools", "quarantined", "connect", "details"],
    align: ["left", "left", "left", "right", "right", "right", "left"] as const,
    rows: report.backends.map((b) => [
      b.namespace,
      kindLabel(b.kind),
      b.status,
      String(b.tools),
      b.quarantined ? String(b.quarantined) : "",
      b.connectMs === undefined ? "" : `${b.connectMs} ms`,
      oneLine(b.detail, 70),
    ]),
  };
  lines.push(
    textTable(table, (cell, row, column) => (column === 2 ? statusStyle(report.backends[row]!.status)(cell) : cell)),
    "",
  );

  const { store, embedder, lockFile } = report;
  const where = store.kind === "memory" ? "memory (this process only; set metatools.store.url to share across processes)" : store.where;
  lines.push(
    `${"store".padEnd(10)} ${store.ok ? mark.ok : mark.bad} ${where}${store.ok ? (store.kind === "memory" ? "" : `: reachable, ${store.ms.toFixed(1)} ms`) : `: ${store.error}`}`,
  );
  lines.push(`${"embedder".padEnd(10)} ${embedderLine(embedder, mark)}`);
  lines.push(`${"learning".padEnd(10)} ${learningLine(report, mark)}`);
  lines.push(
    lockFile
      ? `${"lock file".padEnd(10)} ${mark.ok} ${lockFile.file}: ${lockFile.pinned} tool definitions pinned`
      : `${"lock file".padEnd(10)} ${mark.off} off: tool definitions are not pinned (metatools.security.lockFile)`,
  );

  lines.push("");
  if (!report.problems.length) lines.push(style.ok("no problems found"));
  else {
    lines.push(style.bold(`${report.problems.length} problem${report.problems.length === 1 ? "" : "s"}:`));
    for (const p of report.problems) lines.push(`  ${mark.bad} ${p.subject}: ${p.problem.replace(/\n/g, "\n      ")}`, `    → ${p.fix}`);
  }
  return lines.join("\n");
}

/** "✓ built-in (static:builtin:…, 256 dimensions): 35 of 35 tools embedded, 35 cached in FILE". */
function learningLine(report: DoctorReport, mark: Record<"ok" | "bad" | "off", string>): string {
  const { learning, store } = report;
  if (learning.status === "off") return `${mark.off} off: search does not learn from use (metatools.learn is false)`;
  if (learning.status === "failed") return `${mark.bad} ${learning.error}`;
  if (!learning.where || learning.where === "memory")
    return `${mark.ok} on, in this process's memory only: forgotten when it stops (no config file, or learn.persist is false)`;
  if (store.kind === "memory")
    return `${mark.ok} on: ${learning.terms} terms learned, kept in ${learning.where} (metatools.store.url shares it between replicas)`;
  return `${mark.ok} on: ${learning.terms} terms learned, shared in ${store.where}`;
}

function embedderLine(embedder: DoctorReport["embedder"], mark: Record<"ok" | "bad" | "off", string>): string {
  if (embedder.status === "off")
    return `${mark.off} off: search is BM25 only (metatools.search.embedder is false; without it search is hybrid with the built-in embedder)`;
  const name = `${embedder.type === "builtin" ? "built-in" : (embedder.type ?? "embedder")}${embedder.id ? ` (${embedder.id}, ${embedder.dimensions} dimensions)` : ""}`;
  if (embedder.status === "failed") return `${mark.bad} ${name}: ${embedder.error}`;
  const cache = embedder.cacheFile ? `, ${embedder.cached} cached in ${embedder.cacheFile}` : ", cached in memory only";
  const service =
    embedder.latencyMs !== undefined ? `, a query in ${embedder.latencyMs} ms` : embedder.queryError ? `, a query failed just now: ${embedder.queryError}` : "";
  return `${embedder.queryError ? mark.bad : mark.ok} ${name}: ${embedder.embedded} of ${embedder.total} tools embedded${embedder.status === "indexing" ? " (still embedding)" : ""}${cache}${service}`;
}

/** The first line of a message, shortened for a table cell; the problems list below the table has it whole. */
function oneLine(text: string, max: number): string {
  const first = text.split("\n")[0]!;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
