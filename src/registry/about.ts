/**
 * What servers say about themselves, as search reads it. A namespace's: its
 * `serverInfo` title and description and its instructions, as one plain
 * text, bounded: control characters and whitespace runs become one space,
 * and past ABOUT_MAX characters the rest is left out (a server's
 * instructions are for agents, and a flood of them is no more about the
 * server than its first page). A
 * tool's: the search hint in its `_meta`, a few keywords.
 */
import type { BackendInfo } from "../backends/types.js";

/** The most characters of a namespace's own words that search indexes. */
export const ABOUT_MAX = 4000;

/** Control characters (C0, DEL, C1): in a terminal they move the cursor or fake output; as words they are nothing. */
// eslint-disable-next-line no-control-regex -- control characters are what is removed
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]+/g;

export function aboutText(info: Pick<BackendInfo, "title" | "description" | "instructions"> | undefined): string {
  const parts = [info?.title, info?.description, info?.instructions].filter((p): p is string => typeof p === "string");
  const text = parts.join("\n").replace(CONTROLS, " ").replace(/\s+/g, " ").trim();
  if (text.length <= ABOUT_MAX) return text;
  const cut = text.lastIndexOf(" ", ABOUT_MAX);
  return text.slice(0, cut > ABOUT_MAX / 2 ? cut : ABOUT_MAX);
}

/** The longest search hint kept: a few keywords, not a second description. */
export const HINT_MAX = 200;

/** A tool's `_meta["anthropic/searchHint"]` (the search words a server offers for it), bounded, or nothing. */
export function searchHint(meta: Record<string, unknown> | undefined): { hints?: string } {
  const hint = meta?.["anthropic/searchHint"];
  if (typeof hint !== "string") return {};
  const text = hint.replace(CONTROLS, " ").replace(/\s+/g, " ").trim().slice(0, HINT_MAX);
  return text ? { hints: text } : {};
}

/** The words a server said of itself at connect (serverInfo's title and description, its instructions): those set and not blank. */
export function selfDescription(said: {
  title?: unknown;
  description?: unknown;
  instructions?: unknown;
}): Pick<BackendInfo, "title" | "description" | "instructions"> {
  return Object.fromEntries(Object.entries(said).filter(([, v]) => typeof v === "string" && v.trim() !== ""));
}
