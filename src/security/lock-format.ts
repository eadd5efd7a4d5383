/**
 * The lock file on disk: read (validated: it is the operator's file, edited
 * by hand and by `metatools approve`), written (sorted by tool id, so a
 * diff shows only what changed), and the rule that merges a process's
 * unwritten changes over a file someone else rewrote meanwhile.
 */
import { readFileSync, statSync } from "node:fs";
import { ConfigError, errorMessage } from "../util/errors.js";
import { sameTerms, type Terms } from "./terms.js";

export interface Pin {
  hash: string;
  /** "first-use": pinned automatically, clean when first seen; "approved": a person approved this definition. */
  by: "first-use" | "approved";
  /** When it was pinned (ISO time). */
  at: string;
  /** The UTC day (YYYY-MM-DD) its backend last listed the tool. A pin without one (written by an earlier release) counts as seen the day it was pinned. */
  seen?: string;
  /**
   * The terms it is served on (terms.ts): server name, read-only and destructive as applied, catalog entries, search hint.
   * A pin written by an earlier release has none: they are recorded the first time its tool is listed with the pinned definition.
   */
  terms?: Terms;
}

/**
 * A change a process has not written yet: a pin set (new, or approved), one pruned, or what it only noticed of a pin
 * (`adopted`: seen on a later day, or an earlier release's pin given its terms or its served id; lock.ts).
 */
export type Change = { pin: Pin } | { pruned: Pin } | { adopted: Pin };

const NOTE =
  "Tool definitions metatools has pinned, with the terms each is served on. A tool whose definition or terms change is quarantined until `metatools approve` pins the new ones.";

/** What identifies one version of the file: `writeFileAtomic` renames a new file over it, so any rewrite changes the inode. */
export function stampOf(file: string): string {
  try {
    const stat = statSync(file);
    return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  } catch {
    return "missing";
  }
}

export function readPins(file: string): Map<string, Pin> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, "", `not valid JSON: ${errorMessage(error)}`);
  }
  const tools = (parsed as { tools?: unknown } | null)?.tools ?? {};
  if (typeof tools !== "object" || tools === null || Array.isArray(tools)) throw new ConfigError(file, "tools", "expected an object of pins by tool id");
  const pins = new Map<string, Pin>();
  for (const [id, pin] of Object.entries(tools)) {
    if (!isPin(pin))
      throw new ConfigError(
        file,
        `tools.${id}`,
        'expected {"hash": string, "by": "first-use" | "approved", "at": ISO time, "seen"?: YYYY-MM-DD, "terms"?: {"server"?: string, "readOnly": boolean, "destructive": boolean, "catalog"?: string[], "hint"?: string}}',
      );
    pins.set(id, pin);
  }
  return pins;
}

function isPin(value: unknown): value is Pin {
  const pin = value as Partial<Pin> | null;
  return (
    typeof pin === "object" &&
    pin !== null &&
    typeof pin.hash === "string" &&
    (pin.by === "first-use" || pin.by === "approved") &&
    typeof pin.at === "string" &&
    (pin.seen === undefined || typeof pin.seen === "string") &&
    (pin.terms === undefined || isTerms(pin.terms))
  );
}

function isTerms(value: unknown): value is Terms {
  const terms = value as Partial<Terms> | null;
  return (
    typeof terms === "object" &&
    terms !== null &&
    !Array.isArray(terms) &&
    (terms.server === undefined || typeof terms.server === "string") &&
    typeof terms.readOnly === "boolean" &&
    typeof terms.destructive === "boolean" &&
    (terms.catalog === undefined || (Array.isArray(terms.catalog) && terms.catalog.every((c) => typeof c === "string"))) &&
    (terms.hint === undefined || typeof terms.hint === "string")
  );
}

export function serializePins(pins: ReadonlyMap<string, Pin>): string {
  const tools = Object.fromEntries([...pins.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify({ note: NOTE, version: 1, tools }, null, 2)}\n`;
}

/**
 * Applies a change this process has not written over `pins`, read from a
 * file someone else wrote meanwhile; false when the file wins and the change
 * is dropped. An approval made here wins (a person just made it). A
 * first-use pin yields to a pin of another definition, or an approval, in
 * the file; of the same definition, the later `seen` is kept. A pruning
 * removes only the very pin this process pruned, never an approval or a
 * definition pinned since.
 */
export function mergeChange(pins: Map<string, Pin>, id: string, change: Change): boolean {
  const theirs = pins.get(id);
  if ("pruned" in change) {
    if (theirs?.by !== "first-use" || theirs.hash !== change.pruned.hash) return false;
    pins.delete(id);
    return true;
  }
  if ("adopted" in change) {
    // What this process only noticed of a pin (listed on a later day; the terms an earlier release's pin lacked): it fills
    // in the same definition's pin, never one of another definition someone wrote meanwhile, nor terms the file has.
    const ours = change.adopted;
    if (!theirs) {
      pins.set(id, ours);
      return true;
    }
    if (theirs.hash !== ours.hash) return false;
    const seen = !theirs.seen || (ours.seen !== undefined && ours.seen > theirs.seen) ? ours.seen : theirs.seen;
    const merged: Pin = { ...theirs, ...(seen ? { seen } : {}), ...(theirs.terms === undefined && ours.terms !== undefined ? { terms: ours.terms } : {}) };
    if (merged.seen === theirs.seen && merged.terms === theirs.terms) return false;
    pins.set(id, merged);
    return true;
  }
  const ours = change.pin;
  if (!theirs) {
    pins.set(id, ours);
    return true;
  }
  // A pin of an earlier release has no terms: the first ones recorded for its definition fill them in, as a first use would.
  const otherTerms = theirs.terms !== undefined && !sameTerms(theirs.terms, ours.terms);
  if (theirs.hash !== ours.hash || otherTerms) {
    if (ours.by !== "approved") return false;
    pins.set(id, ours);
    return true;
  }
  const seen = !theirs.seen || (ours.seen !== undefined && ours.seen > theirs.seen) ? ours.seen : theirs.seen;
  const merged: Pin = {
    ...theirs,
    ...(ours.by === "approved" && theirs.by !== "approved" ? { by: ours.by, at: ours.at } : {}),
    ...(seen ? { seen } : {}),
    ...(theirs.terms === undefined && ours.terms !== undefined ? { terms: ours.terms } : {}),
  };
  if (merged.by === theirs.by && merged.seen === theirs.seen && merged.terms === theirs.terms) return false;
  pins.set(id, merged);
  return true;
}
