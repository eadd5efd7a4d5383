/**
 * `metatools audit [--last N] [--principal ID] [--tool GLOB] [--profile NAME] [--json]`:
 * the last records of the audit trail (src/audit/), where the config keeps
 * it: the JSON-lines file of this config (its rotated files included, newest
 * last) or the shared Redis store. A table for a person, or one JSON object
 * a line with --json. A gap (records lost while the disk or the store did
 * not keep up) is shown where it happened, whatever the filters.
 */
import { openAuditSink } from "../../audit/open.js";
import { isGap, type AuditEntry, type AuditRecord } from "../../audit/record.js";
import { loadConfig } from "../../config/load.js";
import { globTester } from "../../util/glob.js";
import { textTable } from "../../util/table.js";
import { printableJson } from "../../util/terminal.js";
import { defineCommand } from "../command.js";
import { flag, parseFlags, SHARED, UsageError } from "../flags.js";
import { stderr, stdout, type Output } from "../output.js";

export const command = defineCommand({
  name: "audit",
  group: "govern",
  summary: "the last run_tool calls from the audit trail: who ran which tool, with what outcome (never the arguments' values)",
  details:
    "Reads where the config keeps the trail (metatools.audit): the JSON-lines file of this config, its rotated files included, or the shared Redis store. Records are listed oldest first.",
  flags: {
    last: flag.int("N", 1, "the last N records (default 20)"),
    principal: flag.string("ID", "only one caller's: a principal, or its start as the table shows it"),
    tool: flag.string("GLOB", "only those of the tools a glob matches (--tool 'github:*')"),
    profile: flag.string("NAME", "only one profile's"),
    json: { ...SHARED.json, help: "one record a line, with the arguments' digest" },
  },
  run: audit,
});

const DEFAULT_LAST = 20;
/** A principal is shown to this many characters (`token:` and 8 of its hash), enough to tell callers apart; --principal takes it back. */
const SHORT_PRINCIPAL = 14;

export async function audit(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals.length) throw new UsageError(`audit takes no arguments, got "${positionals[0]}" (filter with --principal, --tool, --profile)`);
  const last = values.last ?? DEFAULT_LAST;
  const config = loadConfig({ configPath: values.config, root: values.root });
  if (!config.audit) {
    stderr().write("metatools audit: the audit trail is off in this config (metatools.audit.enabled: false)\n");
    return 1;
  }
  const sink = openAuditSink(config.audit, config.store);
  try {
    const filters = { principal: values.principal, tool: values.tool, profile: values.profile };
    const { entries, skipped } = await sink.recent(last, accepting(filters));
    const out = stdout();
    if (values.json) for (const entry of entries) out.write(`${printableJson(JSON.stringify(entry))}\n`);
    else out.write(`${showText(entries, sink.where, last, filters, out)}\n`);
    if (skipped) stderr().write(`metatools audit: skipped ${skipped} lines of ${sink.where} that are not audit records\n`);
    return 0;
  } finally {
    await sink.close();
  }
}

interface Filters {
  principal?: string;
  tool?: string;
  profile?: string;
}

/** What the filters keep; a gap is always kept (the records it stands for may be any caller's). */
function accepting({ principal, tool, profile }: Filters): (entry: AuditEntry) => boolean {
  // A principal as the table shows it (shortened, with its ellipsis) is the start of one.
  const start = principal?.replace(/…$/, "");
  const toolMatches = tool === undefined ? undefined : globTester(tool);
  return (entry) =>
    isGap(entry) ||
    ((start === undefined || entry.principal === start || entry.principal.startsWith(start)) &&
      (toolMatches === undefined || toolMatches(entry.tool)) &&
      (profile === undefined || entry.profile === profile));
}

/** A table for a person: time, caller, profile, tool, approval, outcome, duration; gaps as a row of their own. */
function showText(entries: readonly AuditEntry[], where: string, last: number, filters: Filters, out: Output): string {
  const chosen = Object.entries(filters).filter(([, value]) => value !== undefined);
  const filtered = chosen.length ? ` matching ${chosen.map(([key, value]) => `--${key} ${value}`).join(" ")}` : "";
  if (!entries.length) return `No audit records${filtered ? filtered : " yet"} (${where}).`;
  const rows = entries.map((entry) => (isGap(entry) ? [when(entry.time), "—", "—", `(${entry.dropped} records lost here)`, "", "lost", ""] : row(entry)));
  const statusColumn = 5;
  const table = textTable(
    {
      head: ["TIME (UTC)", "PRINCIPAL", "PROFILE", "TOOL", "APPROVAL", "STATUS", "MS"],
      rows,
      align: ["left", "left", "left", "left", "left", "left", "right"],
      note: "--principal takes a principal as shown; --json gives every field, the arguments' digest included (never their values)",
    },
    (cell, r, c) => (c !== statusColumn ? cell : rows[r]![c] === "ok" ? out.style.ok(cell) : out.style.bad(cell)),
  );
  const count = `${entries.length < last ? "" : "last "}${entries.length} record${entries.length === 1 ? "" : "s"}`;
  return [`Audit trail (${where}): the ${count}${filtered}, oldest first.`, table].join("\n");
}

function row(record: AuditRecord): string[] {
  // A named token's caller is shown whole: the name is the operator's, and short.
  const principal =
    record.principal.length > SHORT_PRINCIPAL + 1 && !record.principal.startsWith("token:@")
      ? `${record.principal.slice(0, SHORT_PRINCIPAL)}…`
      : record.principal;
  return [when(record.time), principal, record.profile, record.tool, record.approval, record.status, String(record.duration_ms)];
}

/** `2025-05-01 09:30:12`: to the second, in UTC. */
function when(iso: string): string {
  return iso.replace("T", " ").replace(/(\.\d+)?Z$/, "");
}
