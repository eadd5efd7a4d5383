/**
 * How a backend's result is shown: text joined, structured content kept,
 * binary content described rather than inlined. A result over the byte
 * budget is stored under an output handle; the reply carries the handle, a
 * summary and the call that reads it in slices. A built-in tool's expected
 * failure (`{ok: false, error, hint…}`) is lifted to the top, as run_tool's own.
 */
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, recoverable, warning, type NextCall } from "../disclosure/guidance.js";
import { StoreError } from "../store/kv.js";
import { spill, type OutputStore } from "../disclosure/outputs.js";
import type { RunOutcome } from "../exec/executor.js";
import type { MetaBody } from "./types.js";

type Ok = Extract<RunOutcome, { kind: "ok" }>;
type Block = Ok["result"]["content"][number];

/** `principal` is whom the call was made for: a handle the result is stored under is theirs alone. */
export async function presentResult(outcome: Ok, budget: number, outputs: OutputStore, principal: string): Promise<MetaBody> {
  const { record, result, durationMs } = outcome;
  const texts: string[] = [];
  const others: Record<string, unknown>[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else others.push(describeBlock(block));
  }
  const structured = result.structuredContent;
  if (result.isError && isRecoverable(structured)) {
    const { ok: _ok, ...rest } = structured;
    return { ok: false, tool_id: record.id, ...rest };
  }
  let text = texts.join("\n");
  if (structured !== undefined && sameJson(text, structured)) text = "";
  const cached = outcome.cache === "hit" ? { cache: "hit", cache_age_s: Math.round((outcome.cacheAgeMs ?? 0) / 1000) } : {};
  const head: MetaBody = result.isError
    ? { ok: false, error: { code: "tool_error", message: "The tool reported an error (below)." }, tool_id: record.id, duration_ms: durationMs }
    : { ok: true, tool_id: record.id, duration_ms: durationMs, ...cached };
  const body: MetaBody = {
    ...head,
    ...(text ? { result: text } : {}),
    ...(structured !== undefined ? { structured } : {}),
    ...(others.length ? { content: others } : {}),
  };
  const notes: string[] = [];
  if (outcome.unchecked) notes.push(`The tool's input schema could not be compiled (${outcome.unchecked}), so the arguments went unchecked.`);
  if (others.some((o) => "omitted" in o)) notes.push("Binary content is described, not inlined.");
  if (outcome.outputProblems?.length) {
    const fields = outcome.outputProblems.map((p) => `${p.field}: expected ${p.expected}`).join("; ");
    notes.push(`The structured content does not match the tool's output schema (${fields}); fields may be missing or of another type than describe_tool shows.`);
  }
  let guided: MetaBody;
  if (result.isError) {
    const next: NextCall = { tool: "describe_tool", arguments: { tool_id: record.id, detail_level: "full" } };
    notes.push(`Check the arguments against the docs: ${formatCall(next)}`);
    guided = { ...body, ...guidanceFields(hint(notes.join(" "), next)) };
  } else guided = { ...body, ...(notes.length ? guidanceFields(warning(notes.join(" "))) : {}) };
  if (jsonBytes(guided) <= budget) return guided;
  return handOff(head, body, notes, budget, outputs, record.id, principal);
}

/** Stores the whole result under a handle; the reply keeps the head, a summary and the call that reads it. */
async function handOff(head: MetaBody, body: MetaBody, notes: string[], budget: number, outputs: OutputStore, toolId: string, principal: string): Promise<MetaBody> {
  const { result, structured, content } = body as { result?: string; structured?: unknown; content?: unknown[] };
  const json = result === undefined && content === undefined;
  const text = json ? JSON.stringify(structured, null, 2) : [result ?? "", ...(content ?? []).map((c) => JSON.stringify(c))].filter(Boolean).join("\n");
  let stored: Awaited<ReturnType<typeof spill>>;
  try {
    stored = await spill(outputs, { kind: json ? "json" : "text", text, source: toolId }, budget, principal);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    const bytes = Buffer.byteLength(text, "utf8");
    return {
      ...head,
      ...recoverable("store_unavailable", `The result (${bytes} bytes) is over the ${budget}-byte budget and could not be stored under a handle: ${error.message}.`),
      ...guidanceFields(warning([...notes, "Ask for less (a narrower call), or retry once the store is back."].join(" "))),
    };
  }
  const reply = { ...head, handle: stored.handle, summary: stored.summary, ...guidanceFields(hint([...notes, stored.hint].join(" "), stored.next)) };
  if (jsonBytes(reply) <= budget) return reply;
  // Long notes (schema problems, say) give way first, then the summary's detail: the handle and its next call must get through.
  const lean = { ...head, handle: stored.handle, summary: stored.summary, ...guidanceFields(hint(stored.hint, stored.next)) };
  if (jsonBytes(lean) <= budget) return lean;
  const { kind, bytes, lines } = stored.summary;
  return { ...lean, summary: { kind, bytes, lines } };
}

function isRecoverable(value: unknown): value is { ok: false; error: { code: string; message: string } } & Record<string, unknown> {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v.ok === false && !!v.error && typeof (v.error as Record<string, unknown>).code === "string";
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
