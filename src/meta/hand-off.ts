/**
 * A result over the byte budget goes under an output handle: the reply
 * keeps its head, a summary and the `metatools:read_output` call that reads
 * it. What travels beside the JSON (the list of media, the resource links)
 * stays in the reply while it takes at most half the budget; past that
 * (300 links, 10,000 tiny images) the lists go into the stored output too,
 * and the reply says so.
 */
import { jsonBytes } from "../disclosure/budget.js";
import { guidanceFields, hint, recoverable, warning, type GuidanceFields, type NextCall } from "../disclosure/guidance.js";
import { spill, type OutputStore } from "../disclosure/outputs.js";
import { StoreError, type StoreErrorCode } from "../store/kv.js";
import type { RunHandedOff, RunHead, RunNotStored, RunResult } from "./reply.js";

export interface HandingOff {
  /** `ok`, `tool_id`, `duration_ms` (or the tool error's head). */
  head: RunHead;
  /** The reply as it would have been: `result`, `structured`, `content`, `media`, `media_handle`, `links`. */
  body: RunResult;
  /** Hints: what to do next (read links, fetch kept media). They give way first when the reply is too long. */
  notes: readonly string[];
  /** What is incomplete or unchecked (schema problems, a store that could not keep media): the warning register, but they give way too. */
  cautions: readonly string[];
  /** Said first, in the warning register: the reply must keep them whatever gives way. */
  warnings: readonly string[];
  budget: number;
  outputs: OutputStore;
  toolId: string;
  principal: string;
}

const RETRY: Record<StoreErrorCode, string> = {
  store_unavailable: "Ask for less (a narrower call), or retry once the store is back.",
  store_full: "Ask for less (a narrower call), or retry in a few minutes, as stored outputs expire.",
};

/** The reply, and whether the links stayed in it (only then are they sent as content blocks too). */
export async function handOff({
  head,
  body,
  notes,
  cautions,
  warnings,
  budget,
  outputs,
  toolId,
  principal,
}: HandingOff): Promise<{ reply: RunHandedOff | RunNotStored; linksInReply: boolean }> {
  const { result, structured, content, media, links } = body;
  const lists = { ...(media ? { media } : {}), ...(links ? { links } : {}) };
  const empty = result === undefined && content === undefined && structured === undefined;
  // With nothing else to store, the lists are what is stored.
  const listsFit = !empty && jsonBytes(lists) <= budget / 2;
  // Structured content that only wraps one text (`{content: "<a file>"}`) is stored as that text, read as a document of its own.
  const wrapped = result === undefined && content === undefined ? onlyText(structured) : undefined;
  let json = wrapped === undefined ? result === undefined && content === undefined : isJson(wrapped);
  let text =
    wrapped ?? (json ? JSON.stringify(structured ?? {}, null, 2) : [result ?? "", ...(content ?? []).map((c) => JSON.stringify(c))].filter(Boolean).join("\n"));
  const moved: string[] = [];
  if (!listsFit) {
    if (media) moved.push(`the list of the ${media.length} media (media)`);
    if (links) moved.push(`the ${links.length} resource links (links)`);
    if (json || empty) {
      text = JSON.stringify({ ...(structured !== undefined ? { structured } : {}), ...lists }, null, 2);
      json = true;
    } else
      text = [
        text,
        ...Object.entries(lists).map(([key, items]) => [`${key}: ${items.length}, one per line:`, ...items.map((i) => JSON.stringify(i))].join("\n")),
      ].join("\n\n");
  }
  const kept = listsFit ? lists : {};
  const handle = body.media_handle ? { media_handle: body.media_handle } : {};
  const say = (texts: readonly string[], next?: NextCall, alarmed = warnings.length > 0): GuidanceFields =>
    guidanceFields((alarmed ? warning : hint)([...warnings, ...texts].join(" "), next));
  let stored: Awaited<ReturnType<typeof spill>>;
  try {
    stored = await spill(outputs, { kind: json ? "json" : "text", text, source: toolId }, budget, principal);
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    const bytes = Buffer.byteLength(text, "utf8");
    return {
      reply: {
        ...head,
        ...handle,
        ...recoverable(error.code, `The result (${bytes} bytes) is over the ${budget}-byte budget and could not be stored under a handle: ${error.message}.`),
        ...guidanceFields(warning([...warnings, ...cautions, ...notes, RETRY[error.code]].join(" "))),
      },
      linksInReply: false,
    };
  }
  const where = moved.length ? [`${moved.join(" and ")} ${moved.length === 1 ? "is" : "are"} in the stored output, too long for the reply.`] : [];
  const top = { ...head, ...kept, ...handle, handle: stored.handle };
  const reply = { ...top, summary: stored.summary, ...say([...cautions, ...where, ...notes, stored.hint], stored.next, warnings.length + cautions.length > 0) };
  const linksInReply = listsFit && !!links;
  if (jsonBytes(reply) <= budget) return { reply, linksInReply };
  // Long notes and cautions (schema problems, say) give way first, then the summary's detail: the handle and its next call must get through.
  const lean = { ...top, summary: stored.summary, ...say([...where, stored.hint], stored.next) };
  if (jsonBytes(lean) <= budget) return { reply: lean, linksInReply };
  const { kind, bytes, lines } = stored.summary;
  return { reply: { ...lean, summary: { kind, bytes, lines } }, linksInReply };
}

/** The one string of an object with a single field, if that is all it holds. */
function onlyText(value: unknown): string | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const values = Object.values(value);
  return values.length === 1 && typeof values[0] === "string" ? values[0] : undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
