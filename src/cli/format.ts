/**
 * Human-readable output for the CLI; `--json` prints the meta-tool body as is.
 * Returns the exit code: 1 when the body reports `ok: false`.
 */
import { callSignature } from "../model/signature.js";
import type { AbridgedDoc, DescribeReply, MetaToolName, Replies, Reply, RunReply, SearchReply, ToolDoc } from "../meta/reply.js";
import { textTable } from "../util/table.js";
import type { NextCall } from "../disclosure/guidance.js";
import { commandLine, withCommandLines } from "./command-line.js";
import { parameterRows } from "./parameters.js";
import { styleFor, type Style } from "./style.js";
import { stderr, stdout } from "./output.js";
import { splitToolId } from "../model/tool.js";

/** A reply that reports a failure (`ok: false`). */
type Failure = Extract<Reply, { ok: false }>;

/** Each meta-tool with the replies it gives when it did not fail. */
type Printed =
  { tool: "search_tools"; body: SearchReply } | { tool: "describe_tool"; body: DescribeReply } | { tool: "run_tool"; body: Exclude<RunReply, Failure> };

export function printBody(tool: "search_tools", body: Replies["search_tools"], json: boolean): number;
export function printBody(tool: "describe_tool", body: Replies["describe_tool"], json: boolean): number;
export function printBody(tool: "run_tool", body: Replies["run_tool"], json: boolean): number;
export function printBody(tool: MetaToolName, body: Reply, json: boolean): number {
  if (json) {
    stdout().json(body);
    return body.ok === false ? 1 : 0;
  }
  const err = styleFor(process.stderr);
  if (body.ok === false) return printFailure(body, err);
  // The overloads pair each tool with its own replies.
  const printed = { tool, body } as Printed;
  const style = styleFor(process.stdout);
  // Backends write these texts: the output sink (output.ts) keeps their control sequences from the terminal.
  if (printed.tool === "search_tools") stdout().write(`${searchText(printed.body, style)}\n`);
  else if (printed.tool === "describe_tool") {
    const described = printed.body;
    const tools = "tools" in described ? described.tools : [described];
    if (tools.length) stdout().write(`${tools.map((t) => describeText(t, style)).join("\n\n")}\n`);
    const unknown = ("unknown" in described ? described.unknown : undefined) ?? [];
    for (const u of unknown) stderr().write(`${err.bad("unknown")}: ${u.id}${u.did_you_mean.length ? ` (did you mean ${u.did_you_mean.join(", ")}?)` : ""}\n`);
    if ("not_shown" in described && described.not_shown) stderr().write(`${err.warn("not shown")}: ${described.not_shown.join(", ")}\n`);
    printGuidance(body, err);
    return unknown.length ? 1 : 0;
  } else printRun(printed.body, err);
  printGuidance(body, err);
  return 0;
}

/** A failure: its code and message, the problems it names, the tool's own text (a tool error), and the guidance. */
function printFailure(body: Failure, err: Style): number {
  // A backend's own refusal (`ToolRefusal`) is outside data: its message and problems are checked as such.
  const message = body.error.message;
  stderr().write(`${err.bad(`error (${body.error.code})`)}: ${withCommandLines(typeof message === "string" ? message : String(message))}\n`);
  const problems: unknown = "problems" in body ? body.problems : undefined;
  if (Array.isArray(problems)) for (const p of problems as { field: string; expected: string }[]) stderr().write(`  ${p.field}: expected ${p.expected}\n`);
  if ("result" in body && typeof body.result === "string") stdout().write(`${body.result}\n`);
  printGuidance(body, err);
  return 1;
}

function searchText(body: SearchReply, style: Style): string {
  const byNs = (body.by_namespace ?? []).map((n) => `${n.namespace} ${n.count}`).join(", ");
  const offset = body.offset ?? 0;
  const lines = [
    `${body.total} matching tool${body.total === 1 ? "" : "s"}${byNs ? ` (${byNs})` : ""}; showing ${body.shown} from ${offset + 1}${body.mode ? `, ranked ${body.mode}` : ""}`,
  ];
  body.hits.forEach((h, i) => {
    const flags = [
      h.read_only ? "read-only" : "",
      h.destructive ? style.warn("destructive") : "",
      h.status ? style.warn(h.status) : "",
      h.runnable === false || body.runnable === false ? style.dim("catalog only") : "",
    ]
      .filter(Boolean)
      .join(", ");
    lines.push(
      "",
      `${String(offset + i + 1).padStart(3)}. ${style.bold(h.id)}${flags ? `  ${flags}` : ""}`,
      ...(h.summary ? [`     ${h.summary}`] : []),
      `     ${style.dim(h.call)}`,
    );
  });
  // Where the tool may be, when search is unsure (the warning says so): each place with its tools' names.
  if (body.map?.length) lines.push("", "Where the tool may be:");
  for (const place of body.map ?? [])
    lines.push(
      `  ${style.bold(place.group ? `${place.namespace} / ${place.group}` : place.namespace)}: ${place.tools.join(", ")}${place.more ? `, …${place.more} more` : ""}`,
    );
  for (const u of body.unavailable ?? []) {
    lines.push(style.warn(`  ! ${u.namespace}: ${u.status}${u.error ? ` — ${u.error}` : ""}`));
    // What a person must do (set a variable, sign in, install a program): the line a reader acts on.
    if (u.fix) lines.push(`    → ${u.fix}`);
  }
  return lines.join("\n");
}

/** One tool's docs as a person reads them: what it does, its call, a parameter table, notes and examples. */
function describeText(tool: ToolDoc | AbridgedDoc, style: Style): string {
  const a = tool.annotations ?? {};
  const hints = [a.readOnlyHint ? "read-only" : "", a.destructiveHint ? style.warn("destructive") : "", a.idempotentHint ? "idempotent" : ""]
    .filter(Boolean)
    .join(", ");
  const lines = [`${style.bold(tool.id)}${tool.title ? ` — ${tool.title}` : ""}${hints ? `  (${hints})` : ""}`];
  if (tool.summary) lines.push(tool.summary);
  if (tool.description && tool.description !== tool.summary) lines.push("", tool.description);
  const call = tool.call ?? (tool.input_schema ? callSignature(splitToolId(tool.id)?.name ?? tool.id, tool.input_schema) : undefined);
  if (call && !tool.declaration) lines.push("", `call: ${call}`);
  if (tool.declaration) lines.push("", tool.declaration);
  // The schema is the backend's: what its properties hold is outside data.
  const rows = parameterRows(tool.input_schema as Record<string, unknown> | undefined);
  if (rows.length) {
    lines.push("", textTable({ head: ["parameter", "type", "meaning"], align: ["left", "left", "left"], rows }));
    if (rows.some(([name]) => name!.includes("*"))) lines.push(style.dim("(* required)"));
  }
  if (tool.notes) lines.push("", `notes: ${tool.notes}`);
  for (const e of tool.examples ?? []) {
    // An abridged doc's example may be a note of what was elided, or have its call elided.
    if (typeof e === "string") {
      lines.push("", `example: ${e}`);
      continue;
    }
    const line = typeof e.call === "string" ? undefined : commandLine({ tool: "run_tool", arguments: { tool_id: e.call.tool_id, args: e.call.args } });
    lines.push("", `example: ${e.title}`, ...(line ? [`  ${line}`] : []));
    if (e.result) lines.push(`  → ${e.result}`);
  }
  for (const ref of tool.external_refs ?? []) lines.push(`see: ${ref.title} ${ref.url}`);
  return lines.join("\n");
}

function printRun(body: Exclude<RunReply, Failure>, err: Style): void {
  // A tool's own output goes out as it came when piped on (the point of run); on a terminal it is made printable.
  if (body.result !== undefined) stdout().pass(`${body.result}\n`);
  if (body.structured !== undefined) stdout().json(body.structured);
  if (body.content) stdout().json(body.content);
  // Media travel beside an agent's JSON; a person writes them to a file.
  for (const m of body.media ?? [])
    stderr().write(
      `${err.dim(`${m.type}${m.mimeType ? ` (${m.mimeType})` : ""}, ${m.bytes} bytes: ${m.withheld ? `withheld: ${m.withheld}` : "not shown here; --out FILE writes it"}`)}\n`,
    );
  const facts = [
    body.cache ? `cache ${body.cache}${body.cache_age_s !== undefined ? ` (${body.cache_age_s} s old)` : ""}` : "",
    `${body.duration_ms} ms`,
  ].filter(Boolean);
  stderr().write(`${err.dim(`${body.tool_id}: ${facts.join(", ")}`)}\n`);
}

/** Guidance as a person runs it: each call it names, and `next`, as a `metatools` command line (command-line.ts). */
function printGuidance(body: Reply, out: Style): void {
  const texts: string[] = [];
  for (const key of ["must_follow", "warning", "hint"] as const) {
    // Typed for every reply but a backend's own refusal, whose fields are outside data.
    const value: unknown = body[key];
    if (typeof value !== "string") continue;
    const text = withCommandLines(value);
    texts.push(text);
    stderr().write(`${key === "hint" ? key : out.warn(key)}: ${text}\n`);
  }
  // The first call on a line of its own, to paste whole (unless the text already ends with it).
  const next = body.next ? commandLine(body.next as NextCall) : undefined;
  if (next && !texts.some((text) => text.endsWith(next))) stderr().write(`next: ${next}\n`);
}
