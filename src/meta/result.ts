/**
 * How a backend's result is shown: text joined, structured content kept,
 * binary content described rather than inlined, and the whole cut to the
 * byte budget with a warning that says exactly what was cut.
 */
import { jsonBytes, truncateBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, warning, type NextCall } from "../disclosure/guidance.js";
import type { RunOutcome } from "../exec/executor.js";
import type { MetaBody } from "./types.js";

type Ok = Extract<RunOutcome, { kind: "ok" }>;
type Block = Ok["result"]["content"][number];

export function presentResult(outcome: Ok, budget: number): MetaBody {
  const { record, result, durationMs } = outcome;
  const texts: string[] = [];
  const others: Record<string, unknown>[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else others.push(describeBlock(block));
  }
  const structured = result.structuredContent;
  let text = texts.join("\n");
  if (structured !== undefined && sameJson(text, structured)) text = "";
  const head: MetaBody = result.isError
    ? { ok: false, error: { code: "tool_error", message: "The tool reported an error (below)." }, tool_id: record.id, duration_ms: durationMs }
    : { ok: true, tool_id: record.id, duration_ms: durationMs };
  const body: MetaBody = {
    ...head,
    ...(text ? { result: text } : {}),
    ...(structured !== undefined ? { structured } : {}),
    ...(others.length ? { content: others } : {}),
  };
  const notes: string[] = [];
  if (outcome.unchecked) notes.push(`The tool's input schema could not be compiled (${outcome.unchecked}), so the arguments went unchecked.`);
  if (others.some((o) => "omitted" in o)) notes.push("Binary content is described, not inlined.");
  if (result.isError) {
    const next: NextCall = { tool: "describe_tool", arguments: { tool_id: record.id, detail_level: "full" } };
    notes.push(`Check the arguments against the docs: ${formatCall(next)}`);
    return fit({ ...body, ...guidanceFields(hint(notes.join(" "), next)) }, budget, notes);
  }
  return fit({ ...body, ...(notes.length ? guidanceFields(warning(notes.join(" "))) : {}) }, budget, notes);
}

/** Cuts the text, then the structured part, until the body fits; says what was cut and how much. */
function fit(body: MetaBody, budget: number, notes: string[]): MetaBody {
  if (jsonBytes(body) <= budget) return body;
  const total = jsonBytes(body);
  const cut: MetaBody = { ...body };
  delete cut.hint;
  delete cut.warning;
  delete cut.next;
  if (cut.structured !== undefined && typeof cut.result === "string") delete cut.structured;
  else if (cut.structured !== undefined) cut.structured = truncateBytes(JSON.stringify(cut.structured), budget);
  const text = typeof cut.result === "string" ? cut.result : typeof cut.structured === "string" ? (cut.structured as string) : "";
  const field = typeof cut.result === "string" ? "result" : "structured";
  const message = (shown: number) =>
    `${[...notes, `The result is ${total} bytes, over the ${budget}-byte response budget: "${field}" holds its first ${shown} bytes and the rest was not sent. Ask the tool for less (a narrower range, filter or limit argument) to see the remainder.`].join(" ")}`;
  let room = budget - jsonBytes({ ...cut, [field]: "", truncated: { shown_bytes: 0, total_bytes: total }, warning: message(0) }) - 64;
  for (let i = 0; i < 4 && room > 0; i++) {
    const shown = truncateBytes(text, room);
    const candidate = { ...cut, [field]: shown, truncated: { shown_bytes: Buffer.byteLength(shown), total_bytes: total }, warning: message(Buffer.byteLength(shown)) };
    if (jsonBytes(candidate) <= budget) return candidate;
    room -= jsonBytes(candidate) - budget + 16;
  }
  return { ok: body.ok, tool_id: body.tool_id, truncated: { shown_bytes: 0, total_bytes: total }, warning: message(0) };
}

function describeBlock(block: Block): Record<string, unknown> {
  switch (block.type) {
    case "image":
    case "audio":
      return { type: block.type, mimeType: block.mimeType, omitted: `${Math.round((block.data.length * 3) / 4)} bytes of base64 data` };
    case "resource_link":
      return { type: block.type, uri: block.uri, name: block.name, ...(block.mimeType ? { mimeType: block.mimeType } : {}) };
    case "resource": {
      const r = block.resource;
      return "text" in r ? { type: "resource", uri: r.uri, text: r.text } : { type: "resource", uri: r.uri, mimeType: r.mimeType, omitted: "binary blob" };
    }
    default:
      return { type: (block as { type: string }).type };
  }
}

function sameJson(text: string, value: unknown): boolean {
  if (!text) return true;
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
