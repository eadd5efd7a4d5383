/**
 * Human-readable output for the CLI; `--json` prints the meta-tool body as is.
 * Returns the exit code: 1 when the body reports `ok: false`.
 */
import { callSignature } from "../model/signature.js";
import type { JsonSchema } from "../model/tool.js";
import type { MetaBody } from "../meta/types.js";
import { textTable } from "../util/table.js";
import { typeOf } from "../util/schema-words.js";
import type { NextCall } from "../disclosure/guidance.js";
import type { MediaNote } from "../disclosure/media.js";
import { commandLine, withCommandLines } from "./command-line.js";
import { styleFor, type Style } from "./style.js";
import { stderr, stdout } from "./output.js";

export function printBody(tool: string, body: MetaBody, json: boolean): number {
  const failed = body.ok === false;
  if (json) {
    stdout().json(body);
    return failed ? 1 : 0;
  }
  const err = styleFor(process.stderr);
  if (failed) {
    const error = body.error as { code: string; message: string };
    stderr().write(`${err.bad(`error (${error.code})`)}: ${withCommandLines(error.message)}\n`);
    if (body.problems) for (const p of body.problems as { field: string; expected: string }[]) stderr().write(`  ${p.field}: expected ${p.expected}\n`);
    if (typeof body.result === "string") stdout().write(`${body.result}\n`);
    printGuidance(body, err);
    return 1;
  }
  const style = styleFor(process.stdout);
  // Backends write these texts: the output sink (output.ts) keeps their control sequences from the terminal.
  if (tool === "search_tools") stdout().write(`${searchText(body, style)}\n`);
  else if (tool === "describe_tool") {
    const tools = Array.isArray(body.tools) ? (body.tools as MetaBody[]) : [body];
    if (tools.length) stdout().write(`${tools.map((t) => describeText(t, style)).join("\n\n")}\n`);
    const unknown = (body.unknown as { id: string; did_you_mean: string[] }[] | undefined) ?? [];
    for (const u of unknown) stderr().write(`${err.bad("unknown")}: ${u.id}${u.did_you_mean.length ? ` (did you mean ${u.did_you_mean.join(", ")}?)` : ""}\n`);
    if (Array.isArray(body.not_shown)) stderr().write(`${err.warn("not shown")}: ${(body.not_shown as string[]).join(", ")}\n`);
    printGuidance(body, err);
    return unknown.length ? 1 : 0;
  } else printRun(body, err);
  printGuidance(body, err);
  return 0;
}

function searchText(body: MetaBody, style: Style): string {
  const hits = body.hits as { id: string; summary: string; call: string; read_only?: boolean; destructive?: boolean; status?: string }[];
  const byNs = ((body.by_namespace as { namespace: string; count: number }[] | undefined) ?? []).map((n) => `${n.namespace} ${n.count}`).join(", ");
  const lines = [
    `${body.total} matching tools${byNs ? ` (${byNs})` : ""}; showing ${body.shown} from ${Number(body.offset) + 1}${body.mode ? `, ranked ${String(body.mode)}` : ""}`,
  ];
  hits.forEach((h, i) => {
    const flags = [h.read_only ? "read-only" : "", h.destructive ? style.warn("destructive") : "", h.status ? style.warn(h.status) : ""]
      .filter(Boolean)
      .join(", ");
    lines.push(
      "",
      `${String(Number(body.offset) + i + 1).padStart(3)}. ${style.bold(h.id)}${flags ? `  ${flags}` : ""}`,
      `     ${h.summary}`,
      `     ${style.dim(h.call)}`,
    );
  });
  for (const u of (body.unavailable as { namespace: string; status: string; error?: string; fix?: string }[] | undefined) ?? []) {
    lines.push(style.warn(`  ! ${u.namespace}: ${u.status}${u.error ? ` — ${u.error}` : ""}`));
    // What a person must do (set a variable, sign in, install a program): the line a reader acts on.
    if (u.fix) lines.push(`    → ${u.fix}`);
  }
  return lines.join("\n");
}

/** One tool's docs as a person reads them: what it does, its call, a parameter table, notes and examples. */
function describeText(tool: MetaBody, style: Style): string {
  const a = (tool.annotations ?? {}) as Record<string, boolean | undefined>;
  const hints = [a.readOnlyHint ? "read-only" : "", a.destructiveHint ? style.warn("destructive") : "", a.idempotentHint ? "idempotent" : ""]
    .filter(Boolean)
    .join(", ");
  const lines = [`${style.bold(String(tool.id))}${tool.title ? ` — ${String(tool.title)}` : ""}${hints ? `  (${hints})` : ""}`];
  if (tool.summary) lines.push(String(tool.summary));
  if (tool.description && tool.description !== tool.summary) lines.push("", String(tool.description));
  const call =
    tool.call ?? (tool.input_schema ? callSignature(String(tool.id).slice(String(tool.id).indexOf(":") + 1), tool.input_schema as JsonSchema) : undefined);
  if (call) lines.push("", `call: ${String(call)}`);
  const schema = tool.input_schema as { properties?: Record<string, Record<string, unknown>>; required?: string[] } | undefined;
  const props = Object.entries(schema?.properties ?? {});
  if (props.length) {
    const required = new Set(schema?.required ?? []);
    lines.push(
      "",
      textTable({
        head: ["parameter", "type", "meaning"],
        align: ["left", "left", "left"],
        rows: props.map(([name, p]) => [`${name}${required.has(name) ? "*" : ""}`, typeOf(p), String(p.description ?? "")]),
      }),
    );
    if (required.size) lines.push(style.dim("(* required)"));
  }
  if (tool.notes) lines.push("", `notes: ${String(tool.notes)}`);
  for (const e of (tool.examples as { title: string; call: { tool_id: string; args: unknown }; result?: string }[] | undefined) ?? []) {
    const line = commandLine({ tool: "run_tool", arguments: { tool_id: e.call.tool_id, args: e.call.args } });
    lines.push("", `example: ${e.title}`, ...(line ? [`  ${line}`] : []));
    if (e.result) lines.push(`  → ${e.result}`);
  }
  for (const ref of (tool.external_refs as { title: string; url: string }[] | undefined) ?? []) lines.push(`see: ${ref.title} ${ref.url}`);
  return lines.join("\n");
}

function printRun(body: MetaBody, err: Style): void {
  // A tool's own output goes out as it came when piped on (the point of run); on a terminal it is made printable.
  if (typeof body.result === "string") stdout().pass(`${body.result}\n`);
  if (body.structured !== undefined) stdout().json(body.structured);
  if (body.content) stdout().json(body.content);
  // Media travel beside an agent's JSON; a person writes them to a file.
  for (const m of (body.media as MediaNote[] | undefined) ?? [])
    stderr().write(
      `${err.dim(`${m.type}${m.mimeType ? ` (${m.mimeType})` : ""}, ${m.bytes} bytes: ${m.withheld ? `withheld: ${m.withheld}` : "not shown here; --out FILE writes it"}`)}\n`,
    );
  const facts = [
    typeof body.cache === "string" ? `cache ${body.cache}${typeof body.cache_age_s === "number" ? ` (${body.cache_age_s} s old)` : ""}` : "",
    typeof body.duration_ms === "number" ? `${body.duration_ms} ms` : "",
  ].filter(Boolean);
  if (facts.length) stderr().write(`${err.dim(`${String(body.tool_id ?? "")}: ${facts.join(", ")}`)}\n`);
}

/** Guidance as a person runs it: each call it names, and `next`, as a `metatools` command line (command-line.ts). */
function printGuidance(body: MetaBody, out: Style): void {
  const texts: string[] = [];
  for (const key of ["must_follow", "warning", "hint"]) {
    if (typeof body[key] !== "string") continue;
    const text = withCommandLines(body[key] as string);
    texts.push(text);
    stderr().write(`${key === "hint" ? key : out.warn(key)}: ${text}\n`);
  }
  // The first call on a line of its own, to paste whole (unless the text already ends with it).
  const next = body.next ? commandLine(body.next as NextCall) : undefined;
  if (next && !texts.some((text) => text.endsWith(next))) stderr().write(`next: ${next}\n`);
}
