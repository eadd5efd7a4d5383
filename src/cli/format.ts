/**
 * Human-readable output for the CLI; `--json` prints the meta-tool body as is.
 * Returns the exit code: 1 when the body reports `ok: false`.
 */
import type { MetaBody } from "../meta/types.js";

export function printBody(tool: string, body: MetaBody, json: boolean): number {
  const failed = body.ok === false;
  if (json) {
    process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return failed ? 1 : 0;
  }
  if (failed) {
    const error = body.error as { code: string; message: string };
    process.stderr.write(`error (${error.code}): ${error.message}\n`);
    if (body.problems) for (const p of body.problems as { field: string; expected: string }[]) process.stderr.write(`  ${p.field}: expected ${p.expected}\n`);
    if (typeof body.result === "string") process.stdout.write(`${body.result}\n`);
    printGuidance(body, process.stderr);
    return 1;
  }
  if (tool === "search_tools") printSearch(body);
  else if (tool === "run_tool") printRun(body);
  else process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  printGuidance(body, process.stderr);
  return 0;
}

function printSearch(body: MetaBody): void {
  const hits = body.hits as { id: string; summary: string; call: string; score: number; read_only?: boolean; destructive?: boolean }[];
  const byNs = (body.by_namespace as { namespace: string; count: number }[]).map((n) => `${n.namespace} ${n.count}`).join(", ");
  const lines = [`${body.total} matching tools${byNs ? ` (${byNs})` : ""}; showing ${body.shown} from ${Number(body.offset) + 1}`];
  hits.forEach((h, i) => {
    const flags = [h.read_only ? "read-only" : "", h.destructive ? "destructive" : ""].filter(Boolean).join(", ");
    lines.push("", `${String(Number(body.offset) + i + 1).padStart(3)}. ${h.id}  (score ${h.score}${flags ? `, ${flags}` : ""})`, `     ${h.summary}`, `     ${h.call}`);
  });
  for (const u of (body.unavailable as { namespace: string; status: string; error?: string }[] | undefined) ?? []) {
    lines.push(`  ! ${u.namespace}: ${u.status}${u.error ? ` — ${u.error}` : ""}`);
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

function printRun(body: MetaBody): void {
  if (typeof body.result === "string") process.stdout.write(`${body.result}\n`);
  if (body.structured !== undefined) process.stdout.write(`${JSON.stringify(body.structured, null, 2)}\n`);
  if (body.content) process.stdout.write(`${JSON.stringify(body.content, null, 2)}\n`);
}

function printGuidance(body: MetaBody, out: NodeJS.WritableStream): void {
  for (const key of ["must_follow", "warning", "hint"]) if (typeof body[key] === "string") out.write(`${key}: ${body[key] as string}\n`);
}
