/**
 * How a backend's result is shown: text joined, structured content kept;
 * images, audio and binary resources checked against their bytes and sent
 * as MCP content beside the JSON (media.ts: within the media budget, else
 * under a handle), resource links passed on. Its text is scanned for
 * instructions aimed at the agent (result-scan.ts): a warning, never a
 * change. A result over the byte budget is stored under an output handle
 * (hand-off.ts); the reply carries the handle, a summary and the call that
 * reads it in slices. A built-in tool's expected failure (`{ok: false,
 * error, hint…}`) is lifted to the top, as run_tool's own.
 */
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, warning, type NextCall } from "../disclosure/guidance.js";
import type { ResourceLink } from "@modelcontextprotocol/sdk/types.js";
import type { OutputStore } from "../disclosure/outputs.js";
import type { RunOutcome } from "../exec/executor.js";
import type { ResourceLinks } from "../disclosure/resource-links.js";
import type { Media } from "../disclosure/media.js";
import { attach, handOn, screenMedia, sendMedia } from "./attachments.js";
import { handOff } from "./hand-off.js";
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
  /** The tool is metatools' own: its guidance (`hint`, `next`, also inside an `overflow` block) is lifted to the reply's top level, where every reply keeps it. */
  builtin?: boolean;
  /** After a tool error: a call that helps (a sibling tool the error points to); else the tool's full docs are suggested. */
  recovery?: NextCall;
}

export async function presentResult(
  outcome: Ok,
  { budget, mediaBudget, outputs, principal, builtin = false, recovery, links: linkStore }: Presenting,
): Promise<MetaBody> {
  const { record, result, durationMs } = outcome;
  const texts: string[] = [];
  const others: Record<string, unknown>[] = [];
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
  const lifted = builtin ? liftGuidance(result.structuredContent) : { structured: result.structuredContent, guidance: {} };
  let structured = lifted.structured;
  if (result.isError && isRecoverable(structured)) {
    const { ok: _ok, ...rest } = structured;
    return { ok: false, tool_id: record.id, ...rest, ...lifted.guidance };
  }
  let text = texts.join("\n");
  // Read before anything is dropped as a duplicate: the scan sees all the result says.
  const warnings = [resultWarning(record.id, { text, structured, others, links }), screened.warning].filter((w): w is string => !!w);
  // The same data as text and as structured content is sent once: structured when the tool declares its shape or it is the smaller, else the text.
  if (structured !== undefined && text) {
    const same = sameData(text, builtin ? result.structuredContent : structured);
    if (same === "json" || (same === "values" && (builtin || record.outputSchema || jsonBytes(structured) <= jsonBytes(text)))) text = "";
    else if (same === "values") structured = undefined;
  }
  const cached = outcome.cache === "hit" ? { cache: "hit", cache_age_s: Math.round((outcome.cacheAgeMs ?? 0) / 1000) } : {};
  const head: MetaBody = result.isError
    ? { ok: false, error: { code: "tool_error", message: "The tool reported an error (below)." }, tool_id: record.id, duration_ms: durationMs }
    : { ok: true, tool_id: record.id, duration_ms: durationMs, ...cached };
  const body: MetaBody = {
    ...head,
    ...(text ? { result: text } : {}),
    ...(structured !== undefined ? { structured } : {}),
    ...(others.length ? { content: others } : {}),
    ...(media.length ? { media: screened.notes, ...(sent.handle ? { media_handle: sent.handle } : {}) } : {}),
    ...(links.length ? { links: links.map(({ uri, name, mimeType }) => ({ uri, name, ...(mimeType ? { mimeType } : {}) })) } : {}),
  };
  const notes: string[] = [];
  if (outcome.unchecked) notes.push(`The tool's input schema could not be compiled (${outcome.unchecked}), so the arguments went unchecked.`);
  if (sent.note) notes.push(sent.note);
  if (handed.note) notes.push(handed.note);
  const next = sent.next ?? handed.next;
  if (outcome.outputProblems?.length) {
    const fields = outcome.outputProblems.map((p) => `${p.field}: expected ${p.expected}`).join("; ");
    notes.push(
      `The structured content does not match the tool's output schema (${fields}); fields may be missing or of another type than describe_tool shows.`,
    );
  }
  // Guidance in one register: a warning (a suspicious result, withheld media) leads, said before any note.
  const say = (texts: string[], call?: NextCall) => guidanceFields((warnings.length ? warning : hint)([...warnings, ...texts].join(" "), call));
  let guided: MetaBody;
  const own = lifted.guidance;
  if (!result.isError && Object.keys(own).length) {
    // The tool's own guidance leads; metatools' notes are added to its text (a warning of metatools' raises a hint to a warning).
    const register = textKey(own) ?? "warning";
    const raised = warnings.length && register === "hint" ? "warning" : register;
    const { [register]: ownText, ...rest } = own;
    const joined = [...warnings, ownText, ...notes].filter(Boolean).join(" ");
    guided = { ...body, ...rest, ...(joined ? { [raised]: joined } : {}) };
  } else if (result.isError) {
    const next: NextCall = recovery ?? { tool: "describe_tool", arguments: { tool_id: record.id, detail_level: "full" } };
    notes.push(recovery ? `What the error refers to can be listed: ${formatCall(next)}` : `Check the arguments against the docs: ${formatCall(next)}`);
    guided = { ...body, ...say(notes, next) };
  } else if (next) guided = { ...body, ...say(notes, next) };
  else guided = { ...body, ...(notes.length || warnings.length ? guidanceFields(warning([...warnings, ...notes].join(" "))) : {}) };
  if (jsonBytes(guided) <= budget) return attach(guided, [...sent.attached, ...links]);
  const { reply, linksInReply } = await handOff({ head, body, notes, warnings, budget, outputs, toolId: record.id, principal });
  // Links too many for the reply are listed in the stored output, not sent as content blocks either.
  return attach(reply, [...sent.attached, ...(linksInReply ? links : [])]);
}

function isRecoverable(value: unknown): value is { ok: false; error: { code: string; message: string } } & Record<string, unknown> {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return v.ok === false && !!v.error && typeof (v.error as Record<string, unknown>).code === "string";
}

/** What the JSON says of a block that is neither text nor media nor a link: a text resource whole (under the text budget), or its type. */
function describeBlock(block: Block): Record<string, unknown> {
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
function sameData(text: string, value: unknown): "json" | "values" | undefined {
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

const GUIDANCE_KEYS = ["hint", "warning", "must_follow", "next"] as const;

/** A built-in tool's guidance, taken out of its structured content (top level, or its overflow block) to go at the reply's top level. */
function liftGuidance(structured: Record<string, unknown> | undefined): { structured: Record<string, unknown> | undefined; guidance: Record<string, unknown> } {
  if (!structured || typeof structured !== "object") return { structured, guidance: {} };
  const guidance: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(structured)) {
    if ((GUIDANCE_KEYS as readonly string[]).includes(key)) guidance[key] = value;
    else rest[key] = value;
  }
  const overflow = rest.overflow;
  if (overflow && typeof overflow === "object" && !Array.isArray(overflow)) {
    const kept: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(overflow)) {
      if (!(GUIDANCE_KEYS as readonly string[]).includes(key)) kept[key] = value;
      else if (key === "next") guidance.next ??= value;
      // Two texts (the tool's own and its overflow's) become one, in the tool's register.
      else {
        const register = textKey(guidance) ?? key;
        guidance[register] = [guidance[register], value].filter(Boolean).join(" ");
      }
    }
    rest.overflow = kept;
  }
  return { structured: rest, guidance };
}

/** Which text register the guidance uses, if any. */
function textKey(guidance: Record<string, unknown>): "hint" | "warning" | "must_follow" | undefined {
  return (["must_follow", "warning", "hint"] as const).find((key) => key in guidance);
}
