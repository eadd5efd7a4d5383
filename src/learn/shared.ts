/**
 * What one caller teaches, and when it counts for the others. Each term's
 * shared row keeps, per tool, the evidence of each contributor (a caller,
 * by a hash of its principal and the term; or TRUSTED, a file an operator
 * imported). A caller's own evidence ranks for that caller at once (its own
 * row, store.ts); another caller's counts for everyone only once
 * `shareAfter` distinct callers have taught the same term for the same
 * tool, and then each for at most SHARE_CAP, so agreement weighs, not one
 * caller's volume. One caller can neither put a tool in front of others
 * nor, past its share of a row, push out what others taught.
 */
import { decayed, FLOOR, FORGOTTEN, MAX_TOOLS_PER_TERM, type Evidence, type LearnSettings, type TermRow } from "./model.js";

/** A term's tools, each with its contributors' evidence. */
export type SharedRow = Record<string, Record<string, Evidence>>;

/** The contributor of an imported file: the operator's, counted for everyone whatever the threshold. */
export const TRUSTED = "*";

/** Contributors kept per tool under one term (the strongest): the highest threshold the config accepts (search-schema.ts). */
export const MAX_CONTRIBUTORS = 8;

/** Tools one contributor holds in one term's row: a caller teaching many tools cannot fill the row and push out the others'. */
const MAX_TOOLS_PER_CONTRIBUTOR = 6;

/** The most one other caller's evidence counts for in a shared tool (twice what makes a term count fully, model.ts). */
const SHARE_CAP = 4;

type Weights = Map<string, Map<string, number>>;

/** The row with `delta` added to `contributor`'s evidence for `tool`, decayed to now; bounded as the constants above say. */
export function addShared(row: SharedRow | undefined, contributor: string, tool: string, delta: number, now: number, settings: LearnSettings): SharedRow {
  const weights: Weights = new Map(
    Object.entries(row ?? {}).map(([id, byWho]) => [id, new Map(Object.entries(byWho).map(([who, e]) => [who, decayed(e, now, settings)]))]),
  );
  const entry = weights.get(tool) ?? new Map<string, number>();
  weights.set(tool, entry);
  entry.set(contributor, Math.max(FLOOR, (entry.get(contributor) ?? 0) + delta));
  return bounded(weights, contributor === TRUSTED ? [] : [contributor], now);
}

/**
 * Two processes' changes to one shared row, merged (a learning file both write, file-store.ts): per tool and contributor,
 * what is on disk now plus what this process added since it last read the row (`mine` − `base`), decayed to now; bounded
 * as `addShared`, for every contributor.
 */
export function mergeShared(
  disk: SharedRow | undefined,
  base: SharedRow | undefined,
  mine: SharedRow | undefined,
  now: number,
  settings: LearnSettings,
): SharedRow {
  const weights: Weights = new Map();
  const add = (row: SharedRow | undefined, sign: number) => {
    for (const [tool, byWho] of Object.entries(row ?? {})) {
      const entry = weights.get(tool) ?? new Map<string, number>();
      weights.set(tool, entry);
      for (const [who, e] of Object.entries(byWho)) entry.set(who, (entry.get(who) ?? 0) + sign * decayed(e, now, settings));
    }
  };
  add(disk, 1);
  add(mine, 1);
  add(base, -1);
  for (const byWho of weights.values()) for (const [who, w] of byWho) byWho.set(who, Math.max(FLOOR, w));
  const contributors = new Set([...weights.values()].flatMap((byWho) => [...byWho.keys()]).filter((who) => who !== TRUSTED));
  return bounded(weights, [...contributors], now);
}

/** Forgotten evidence dropped, each of `contributors` held to its share of tools, each tool to its strongest contributors, the row to its best tools. */
function bounded(weights: Weights, contributors: readonly string[], now: number): SharedRow {
  for (const byWho of weights.values()) for (const [who, w] of byWho) if (Math.abs(w) < FORGOTTEN) byWho.delete(who);
  for (const contributor of contributors) {
    const held = [...weights].filter(([, byWho]) => byWho.has(contributor));
    held.sort((a, b) => Math.abs(b[1].get(contributor)!) - Math.abs(a[1].get(contributor)!) || a[0].localeCompare(b[0]));
    for (const [, byWho] of held.slice(MAX_TOOLS_PER_CONTRIBUTOR)) byWho.delete(contributor);
  }
  const tools = [...weights]
    .filter(([, byWho]) => byWho.size)
    .map(([id, byWho]) => [id, strongest(byWho)] as const)
    .sort((a, b) => standing(b[1]) - standing(a[1]) || a[0].localeCompare(b[0]))
    .slice(0, MAX_TOOLS_PER_TERM);
  return Object.fromEntries(tools.map(([id, byWho]) => [id, Object.fromEntries([...byWho].map(([who, w]) => [who, [round(w), now] as Evidence]))]));
}

/** Another deployment's evidence (an imported file) added as the operator's. */
export function importShared(row: SharedRow | undefined, from: TermRow, now: number, settings: LearnSettings): SharedRow {
  let out = row ?? {};
  for (const [tool, evidence] of Object.entries(from)) out = addShared(out, TRUSTED, tool, decayed(evidence, now, settings), now, settings);
  return out;
}

/**
 * What ranks for the caller `me` (its contributor id in this row): its own
 * evidence, plus every other contributor's for the tools that `shareAfter`
 * distinct contributors (`me` among them) raised, or that an imported file
 * holds. As a plain row, decayed to `now`.
 */
export function viewFor(
  own: TermRow | undefined,
  shared: SharedRow | undefined,
  me: string,
  shareAfter: number,
  now: number,
  settings: LearnSettings,
): TermRow {
  const out = new Map<string, number>(Object.entries(own ?? {}).map(([id, e]) => [id, decayed(e, now, settings)]));
  for (const [tool, byWho] of Object.entries(shared ?? {})) {
    let agreeing = 0;
    let trusted = false;
    let others = 0;
    for (const [who, evidence] of Object.entries(byWho)) {
      const w = decayed(evidence, now, settings);
      if (w > 0) agreeing++;
      if (who === TRUSTED) {
        trusted = true;
        others += w;
      } else if (who !== me) others += Math.min(SHARE_CAP, w);
    }
    if (trusted || agreeing >= shareAfter) out.set(tool, (out.get(tool) ?? 0) + others);
  }
  return Object.fromEntries([...out].filter(([, w]) => round(w) !== 0).map(([id, w]) => [id, [round(w), now] as Evidence]));
}

/** A tool's contributors, the operator's first, then the strongest evidence, at most MAX_CONTRIBUTORS. */
function strongest(byWho: Map<string, number>): Map<string, number> {
  const sorted = [...byWho].sort((a, b) => Number(b[0] === TRUSTED) - Number(a[0] === TRUSTED) || b[1] - a[1] || a[0].localeCompare(b[0]));
  return new Map(sorted.slice(0, MAX_CONTRIBUTORS));
}

/** Which tools a full row keeps: an imported one, then the most contributors raising it, then the most evidence. */
function standing(byWho: Map<string, number>): number {
  let agreeing = 0;
  let total = 0;
  for (const [who, w] of byWho) {
    if (w > 0) agreeing += who === TRUSTED ? MAX_CONTRIBUTORS + 1 : 1;
    total += Math.abs(w);
  }
  return agreeing * 1e6 + Math.min(total, 1e6 - 1);
}

function round(weight: number): number {
  return Math.round(weight * 1000) / 1000;
}
