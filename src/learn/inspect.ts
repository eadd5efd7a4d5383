/**
 * What `metatools learn --show` lists: each learned term, the tools it leads
 * to with the weight they rank with for the asking caller (the local user,
 * as the CLI runs), whose evidence that is (the caller's own, imported by an
 * operator, other callers', and whether theirs counts yet: shared.ts), and
 * when it was last taught. Weights are decayed to now; a negative one is a
 * tool that failed or was passed over after such searches.
 */
import { decayed, type LearnSettings } from "./model.js";
import { TRUSTED, viewFor } from "./shared.js";
import type { LearnedStore } from "./store.js";

export interface ShownTool {
  id: string;
  /** What it ranks with in the caller's searches for this term: its own evidence plus what is shared with it. */
  weight: number;
  /** The caller's own evidence. */
  own: number;
  /** Evidence imported by an operator (`metatools learn --import`, `learn.seed`): counts for every caller. */
  imported: number;
  /** Other callers' evidence: how many raised it, their total, and whether it counts for this caller yet (enough callers agree). */
  others: { callers: number; weight: number; counted: boolean };
  /** When it was last taught (ISO 8601). */
  taught: string;
}

export interface ShownTerm {
  /** As search analyzes queries: a word stem, or two neighbouring words joined. */
  term: string;
  tools: ShownTool[];
  /** When any of its tools was last taught (ISO 8601). */
  taught: string;
}

export interface ShowSettings extends LearnSettings {
  shareAfterPrincipals: number;
}

/** Every term the store lists, most recently taught first; its tools by weight. */
export async function showLearned(store: LearnedStore, principal: string, now: number, settings: ShowSettings): Promise<ShownTerm[]> {
  const { terms } = await store.listed();
  const shown: ShownTerm[] = [];
  for (const term of terms) {
    const { own, shared, me } = await store.raw(term, principal);
    const ranked = viewFor(own, shared, me, settings.shareAfterPrincipals, now, settings);
    const ids = new Set([...Object.keys(own ?? {}), ...Object.keys(shared ?? {})]);
    const tools: (ShownTool & { at: number })[] = [];
    for (const id of ids) {
      const mine = own?.[id];
      const byWho = shared?.[id] ?? {};
      let at = mine?.[1] ?? 0;
      let imported = 0;
      const others = { callers: 0, weight: 0, counted: false };
      for (const [who, evidence] of Object.entries(byWho)) {
        at = Math.max(at, evidence[1]);
        const weight = decayed(evidence, now, settings);
        if (who === TRUSTED) imported += weight;
        else if (who !== me) {
          if (weight > 0) others.callers++;
          others.weight += weight;
        }
      }
      // The shared row alone, seen as this caller sees it: others' evidence counts when the tool is still there (shared.ts's rule).
      const sharedView = viewFor(undefined, { [id]: byWho }, me, settings.shareAfterPrincipals, now, settings);
      others.counted = others.callers > 0 && sharedView[id] !== undefined;
      const weight = ranked[id]?.[0] ?? 0;
      const ownWeight = mine ? decayed(mine, now, settings) : 0;
      others.weight = round(others.weight);
      if (!weight && !ownWeight && !imported && !others.weight) continue;
      tools.push({ id, weight, own: round(ownWeight), imported: round(imported), others, taught: new Date(at).toISOString(), at });
    }
    if (!tools.length) continue;
    tools.sort((a, b) => b.weight - a.weight || b.own - a.own || a.id.localeCompare(b.id));
    const at = Math.max(...tools.map((t) => t.at));
    shown.push({ term, tools: tools.map(({ at: _, ...tool }) => tool), taught: new Date(at).toISOString() });
  }
  return shown.sort((a, b) => b.taught.localeCompare(a.taught) || a.term.localeCompare(b.term));
}

function round(weight: number): number {
  return Math.round(weight * 1000) / 1000;
}
