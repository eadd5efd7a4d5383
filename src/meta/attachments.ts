/**
 * What a run_tool reply carries beside its JSON: a backend's media (checked
 * against their bytes first, media-check.ts; sent within the media budget,
 * else kept under a handle with the call that returns them) and its
 * resource links (handed on under metatools:// names the caller can read
 * back).
 */
import type { ResourceLink } from "@modelcontextprotocol/sdk/types.js";
import { READ_RESOURCE_ID } from "../disclosure/resource-links.js";
import { formatCall, type NextCall } from "../disclosure/guidance.js";
import { keepMedia, mediaBytes, mediaCall, noteOf, type Media, type MediaNote } from "../disclosure/media.js";
import type { Attachment } from "../disclosure/outputs.js";
import { withheldBecause } from "../disclosure/media-check.js";
import { printable } from "../security/text.js";
import { lifetimeWords, type OutputStore } from "../disclosure/outputs.js";
import type { ResourceLinks } from "../disclosure/resource-links.js";
import { StoreError } from "../store/kv.js";
import type { Reply } from "./reply.js";
import { ATTACHED, type MetaBody } from "./types.js";

/** The reply with its content blocks (sent beside its JSON, never in it). */
export function attach<R extends Reply>(reply: MetaBody<R>, blocks: Attachment[]): MetaBody<R> {
  if (blocks.length) reply[ATTACHED] = blocks;
  return reply;
}

/**
 * Resource links under metatools:// names the caller can read back, with
 * the call that reads the first (`note`, a hint); when they cannot be kept,
 * a `warning`.
 */
export async function handOn(
  links: ResourceLink[],
  store: ResourceLinks | undefined,
  namespace: string,
  principal: string,
): Promise<{ links: ResourceLink[]; next?: NextCall; note?: string; warning?: string }> {
  if (!links.length || !store) return { links };
  try {
    const shared = await Promise.all(links.map(async (link) => ({ ...link, uri: await store.share(principal, { namespace, uri: link.uri }) })));
    const next: NextCall = { tool: "run_tool", arguments: { tool_id: READ_RESOURCE_ID, args: { uri: shared[0]!.uri } } };
    return {
      links: shared,
      next,
      note: `${shared.length === 1 ? "A resource link" : `${shared.length} resource links`} (links): read one with resources/read, or ${formatCall(next)}.`,
    };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    return { links, warning: `The resource links could not be kept for reading through metatools (${error.message}); they are as the backend wrote them.` };
  }
}

/**
 * Media within the budget go with the reply, and the reply's `media` list
 * says so: nothing is amiss, so nothing more is said. More are kept under a
 * handle (one, for all of them) with the call that returns them (`note`, a
 * hint); when the store cannot take them, a `warning` says they are missing.
 */
export async function sendMedia(
  media: Media[],
  budget: number,
  outputs: OutputStore,
  toolId: string,
  principal: string,
): Promise<{ attached: Media[]; handle?: string; next?: NextCall; note?: string; warning?: string }> {
  if (!media.length) return { attached: [] };
  const bytes = media.reduce((sum, m) => sum + mediaBytes(m), 0);
  const what = media.length === 1 ? `The ${media[0]!.type}` : `The ${media.length} images, audio and files`;
  if (bytes <= budget) return { attached: media };
  try {
    const kept = await keepMedia(outputs, media, toolId, principal);
    const next = mediaCall(kept.handle);
    return {
      attached: [],
      handle: kept.handle,
      next,
      note: `${what} (${bytes} bytes) ${media.length === 1 ? "is" : "are"} over the ${budget}-byte media budget, so ${media.length === 1 ? "it was" : "they were"} kept under ${kept.handle} ${lifetimeWords(outputs, kept)}: ${formatCall(next)} returns ${media.length === 1 ? "it" : "them"}.`,
    };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    return {
      attached: [],
      warning: `${what} (${bytes} bytes) ${media.length === 1 ? "is" : "are"} over the ${budget}-byte media budget and could not be kept (${error.message}); run the call again ${error.code === "store_full" ? "in a few minutes, as stored outputs expire" : "once the store is back"}.`,
    };
  }
}

/**
 * Media split into what passes as what it claims and what is withheld
 * (an SVG or HTML "image", a mimeType with controls, bytes of another
 * type): the notes list all of them in order, each withheld one with why,
 * and `warning` says what was withheld. Withheld media are described only:
 * their bytes are not sent, nor kept.
 */
export function screenMedia(media: readonly Media[]): { passed: Media[]; notes: MediaNote[]; warning?: string } {
  const passed: Media[] = [];
  const notes: MediaNote[] = [];
  const reasons: string[] = [];
  for (const block of media) {
    const why = withheldBecause(block);
    if (why === undefined) {
      passed.push(block);
      notes.push(noteOf(block));
      continue;
    }
    const note = noteOf(block);
    // A mimeType with line breaks or controls is quoted printably: the JSON carries no control character of the backend's.
    notes.push({ ...note, ...(note.mimeType !== undefined ? { mimeType: printable(note.mimeType, 80) } : {}), withheld: why });
    reasons.push(`media[${notes.length - 1}], ${block.type}: ${why}`);
  }
  if (!reasons.length) return { passed, notes };
  const shown = reasons.length > 3 ? [...reasons.slice(0, 3), `and ${reasons.length - 3} more`] : reasons;
  return {
    passed,
    notes,
    warning: `Withheld ${reasons.length === 1 ? "one piece" : `${reasons.length} pieces`} of media, not passed on as what ${reasons.length === 1 ? "it claims" : "they claim"}: ${shown.join("; ")}. See media[].withheld.`,
  };
}
