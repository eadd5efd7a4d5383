/**
 * What a person needs to decide on a quarantined tool (`metatools approve
 * --show`): the definition pinned before (kept in the cache folder,
 * definitions.ts), the one held now, what changed between them, and what
 * the scanner found. Data only; src/cli/commands/approve-show.ts prints it.
 */
import type { Definition } from "./definition.js";
import { definitionOf } from "./definition.js";
import { diffDefinitions, type DefinitionChange } from "./definition-diff.js";
import type { DefinitionStore } from "./definitions.js";
import type { Quarantined } from "./gate.js";
import type { LockFile, Pin } from "./lock.js";
import type { Finding } from "./scan.js";
import { sealOf, termChanges, type TermChange, type Terms } from "./terms.js";

export interface Review {
  id: string;
  kind: Quarantined["kind"];
  reason: string;
  /** The pin the tool no longer matches; null for a tool never pinned (flagged when first seen). */
  pinned: {
    hash: string;
    by: Pin["by"];
    at: string;
    /** The terms pinned with it; absent for a pin of an earlier release. */
    terms?: Terms;
    /** The definition pinned, when it was kept; null when not, and `missing` says why. */
    definition: Definition | null;
    missing?: string;
  } | null;
  current: { hash: string; definition: Definition; terms: Terms; fromSnapshot?: true };
  /** From the pinned definition to the current one; null when there is no pinned definition to compare with. */
  changes: DefinitionChange[] | null;
  /** From the pinned terms (server name, read-only, destructive, catalog entries, search hint) to the current ones; null when the pin has none. */
  termChanges: TermChange[] | null;
  /** What `metatools approve --hash` takes: the definition and its terms as reviewed here. */
  seal: string;
  /** What the scanner found in the current definition (none when it found nothing, or scanning is off). */
  findings: Finding[];
}

/** Why no pinned definition can be shown, for a pin whose definition was not kept. */
export const NOT_KEPT =
  "no copy of the pinned definition was kept: it was pinned by a release of metatools that kept only hashes, or on another machine (a committed lock file), or the cache folder was cleared since; only its hash is known";

export function reviewOf(held: Quarantined, lock: LockFile | undefined, definitions: DefinitionStore | undefined): Review {
  const current = { hash: held.hash, definition: definitionOf(held.tool), terms: held.terms, ...(held.fromSnapshot ? { fromSnapshot: true as const } : {}) };
  const pin = lock?.get(held.id);
  let pinned: Review["pinned"] = null;
  if (pin) {
    const kept = definitions?.read(pin.hash) ?? { status: "missing" as const };
    pinned = {
      hash: pin.hash,
      by: pin.by,
      at: pin.at,
      ...(pin.terms ? { terms: pin.terms } : {}),
      definition: kept.status === "kept" ? kept.definition : null,
      ...(kept.status === "kept" ? {} : { missing: kept.status === "missing" ? NOT_KEPT : kept.problem }),
    };
  }
  return {
    id: held.id,
    kind: held.kind,
    reason: held.reason,
    pinned,
    current,
    changes: pinned?.definition ? diffDefinitions(pinned.definition, current.definition) : null,
    termChanges: pin?.terms ? termChanges(pin.terms, held.terms) : null,
    seal: sealOf(held.hash, held.terms),
    findings: held.findings,
  };
}
