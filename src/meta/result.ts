/**
 * How a backend's result is shown: text joined, structured content kept;
 * images, audio and binary resources checked against their bytes and sent
 * as MCP content beside the JSON (media.ts: within the media budget, else
 * under a handle), resource links passed on. Its text is scanned for
 * instructions aimed at the agent (result-scan.ts): a warning, never a
 * change. A result over the byte budget is stored under an output handle
 * (hand-off.ts); the reply carries the handle, a summary and the call that
 * reads it in slices. A built-in tool's expected failure (`{ok: false,
 * error, hint…}`) is lifted to the top, as run_tool's own, and so is its
 * guidance and handle (envelope.ts). A `warning` says only what is
 * incomplete or suspicious; what is merely so (media sent as content, links
 * to read) is a `hint`, or said by the `media` and `links` lists alone.
 */
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, textField, warning, type GuidanceFields, type NextCall } from "../disclosure/guidance.js";
import type { ResourceLink } from "@modelcontextprotocol/sdk/types.js";
import type { Body } from "../builtin/backend.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { RunOutcome } from "../exec/executor.js";
import type { ResourceLinks } from "../disclosure/resource-links.js";
import type { Media } from "../disclosure/media.js";
import { attach, handOn, screenMedia, sendMedia } from "./attachments.js";
import { liftEnvelope, textKey } from "./envelope.js";
import { handOff } from "./hand-off.js";
import type { ContentNote, RunHead, RunReply, RunResult, ToolRefusal } from "./reply.js";
import { resultWarning } from "./result-scan.js";
import type { MetaBody } from "./types.js";

/** Bytes run_tool's reply adds around a built-in tool's body (`{ok, tool_id, duration_ms, structured}`): built-in tools fit their bodies within the budget less this. */
export const RUN_ENVELOPE_BYTES = 300;

type Ok = Extract<RunOutcome, { kind: "ok" }>;
type Block = Ok["result"]["content"][number];

/** How a result is presented. */
export interface Presenting {
  budget: number;
  /** Decoded bytes of images and audio sent with the reply; more is kept under a handle. */
  mediaBudget: number;
  /** Where resource links are handed on (readable back through metatools); without it they pass as the backend wrote them. */
  links?: ResourceLinks;
  outputs: OutputStore;
  /** Whom the call was made for: a handle the result is stored under is theirs alone. */
  principal: string;
  /** The tool is metatools' own: its guidance and handle (`hint`, `next`, `handle`…, also inside an `overflow` block) are lifted to the reply's top level, where every reply keeps them. */
  builtin?: boolean;
  /** After a tool error: a call that helps (a sibling tool the error points to); else the tool's full docs are suggested. */
  recovery?: NextCall;
}

export async function presentResult(
  outcome: Ok,
  { budget, mediaBudget, outputs, principal, builtin = false, recovery, links: linkStore }: Presenting,
): Promise<MetaBody<RunReply>> {
  const { record, result, durationMs } = outcome;
  const texts: string[] = [];
  const others: ContentNote[] = [];
  const media: Media[] = [];
  let links: ResourceLink[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "image" || block.type === "audio" || (block.type === "resource" && "blob" in block.resource)) media.push(block);
    else if (block.type === "resource_link") links.push(block);
    else others.push(describeBlock(block));
  }
  const screened = screenMedia(media);
  const sent = await sendMedia(screened.passed, mediaBudget, outputs, record.id, principal);
  const handed = await handOn(links, linkStore, record.namespace, principal);
  links = handed.links;
  // A built-in tool's structured content is the body it wrote (builtin/backend.ts), trusted as such; a backend's is outside data.
  const written = builtin ? (result.structuredContent as Body | undefined) : undefined;
  const lifted = written ? liftEnvelope(written) : undefined;
  // An expected failure the tool reported as a refusal (`{ok: false, error, hint…}`) is run_tool's own, at the top.
  if (result.isError && lifted?.structured.ok === false) {
    const { ok: _ok, ...rest } = lifted.structured;
    return { ok: false, tool_id: record.id, ...lifted.envelope, ...rest, ...lifted.guidance };
  }
  if (result.isError && !builtin && isToolRefusal(result.structuredContent)) {
    const { ok: _ok, ...rest } = result.structuredContent;
    return { ok: false, tool_id: record.id, ...rest };
  }
  let structured: Record<string, unknown> | undefined = lifted ? lifted.structured : result.structuredContent;
  let text = texts.join("\n");
  // Read before anything is dropped as a duplicate: the scan sees all the result says. These lead, in the warning register, whatever gives way.
  const warnings = [resultWarning(record.id, { text, structured, others, links }), screened.warning].filter((w): w is string => !!w);
  // The same data as text and as structured content is sent once: structured when the tool declares its shape or it is the smaller, else the text.
  if (structured !== undefined && text) {
    const same = sameData(text, builtin ? result.structuredContent : structured);
    if (same === "json" || (same === "values" && (builtin || record.outputSchema || jsonBytes(structured) <= jsonBytes(text)))) text = "";
    else if (same === "values") structured = undefined;
  }
  const cached = outcome.cache === "hit" ? { cache: "hit" as const, cache_age_s: Math.round((outcome.cacheAgeMs ?? 0) / 1000) } : {};
  const head: RunHead = result.isError
    ? { ok: false, error: { code: "tool_error", message: "The tool reported an error (below)." }, tool_id: record.id, duration_ms: durationMs }
    : { ok: true, tool_id: record.id, duration_ms: durationMs, ...cached };
  const body: RunResult = {
    ...head,
    ...lifted?.envelope,
    ...(text ? { result: text } : {}),
    ...(structured !== undefined ? { structured } : {}),
    ...(others.length ? { content: others } : {}),
    ...(media.length ? { media: screened.notes, ...(sent.handle ? { media_handle: sent.handle } : {}) } : {}),
    ...(links.length ? { links: links.map(({ uri, name, mimeType }) => ({ uri, name, ...(mimeType ? { mimeType } : {}) })) } : {}),
  };
  // Something incomplete or unchecked: said in the warning register, but may give way to the handle when the reply is too long.
  const cautions = [sent.warning, handed.warning].filter((w): w is string => !!w);
  if (outcome.unchecked) cautions.push(`The tool's input schema could not be compiled (${outcome.unchecked}), so the arguments went unchecked.`);
  if (outcome.outputProblems?.length) {
    const fields = outcome.outputProblems.map((p) => `${p.field}: expected ${p.expected}`).join("; ");
    cautions.push(
      `The structured content does not match the tool's output schema (${fields}); fields may be missing or of another type than describe_tool shows.`,
    );
  }
  // What to do next, and nothing amiss: a hint (media kept under a handle, links to read).
  const notes = [sent.note, handed.note].filter((n): n is string => !!n);
  const next = sent.next ?? handed.next;
  const alarmed = warnings.length + cautions.length > 0;
  // Guidance in one register: a warning leads, said before any note.
  const say = (texts: string[], call?: NextCall): GuidanceFields =>
    warnings.length || texts.length ? guidanceFields((alarmed ? warning : hint)([...warnings, ...texts].join(" "), call)) : {};
  let guided: RunResult;
  const own = lifted?.guidance ?? {};
  if (!result.isError && Object.keys(own).length) {
    // The tool's own guidance leads; metatools' notes are added to its text (a warning of metatools' raises a hint to a warning).
    const register = textKey(own) ?? (alarmed ? "warning" : "hint");
    const raised = alarmed && register === "hint" ? "warning" : register;
    const { [register]: ownText, ...rest } = own;
    const joined = [...warnings, ownText, ...cautions, ...notes].filter(Boolean).join(" ");
    guided = { ...body, ...rest, ...(joined ? textField(raised, joined) : {}) };
  } else if (result.isError) {
    const next: NextCall = recovery ?? { tool: "describe_tool", arguments: { tool_id: record.id, detail_level: "full" } };
    notes.push(recovery ? `What the error refers to can be listed: ${formatCall(next)}` : `Check the arguments against the docs: ${formatCall(next)}`);
    guided = { ...body, ...say([...cautions, ...notes], next) };
  } else guided = { ...body, ...say([...cautions, ...notes], next) };
  if (jsonBytes(guided) <= budget) return attach(guided, [...sent.attached, ...links]);
  const { reply, linksInReply } = await handOff({ head, body, notes, cautions, warnings, budget, outputs, toolId: record.id, principal });
  // Links too many for the reply are listed in the stored output, not sent as content blocks either.
  return attach(reply, [...sent.attached, ...(linksInReply ? links : [])]);
}

/** Whether a backend's structured content is a refusal of its own: outside data, checked as such. */
function isToolRefusal(value: Record<string, unknown> | undefined): value is { ok: false; error: ToolRefusal["error"]; [key: string]: unknown } {
  if (!value || typeof value !== "object") return false;
  return value.ok === false && !!value.error && typeof (value.error as Record<string, unknown>).code === "string";
}

/** What the JSON says of a block that is neither text nor media nor a link: a text resource whole (under the text budget), or its type. */
function describeBlock(block: Block): ContentNote {
  if (block.type === "resource" && "text" in block.resource) {
    const { uri, mimeType, text } = block.resource;
    return { type: "resource", uri, ...(mimeType ? { mimeType } : {}), text };
  }
  return { type: block.type };
}

/**
 * Whether the text says what the structured content says: as its JSON
 * ("json"), or as the structured content's values alone, one per line
 * ("values": `{content: "<the text>"}`, as server-filesystem answers).
 */
export function sameData(text: string, value: unknown): "json" | "values" | undefined {
  try {
    if (JSON.stringify(JSON.parse(text)) === JSON.stringify(value)) return "json";
  } catch {
    // Not JSON: compared by its values below.
  }
  const leaves: string[] = [];
  collectLeaves(value, leaves);
  return leaves.length > 0 && leaves.join("\n").trim() === text.trim() ? "values" : undefined;
}

function collectLeaves(value: unknown, out: string[]): void {
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") out.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectLeaves(item, out);
  else if (value && typeof value === "object") for (const item of Object.values(value)) collectLeaves(item, out);
}
