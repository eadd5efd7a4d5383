/**
 * What search learns from use, as plain data: for each query term (a word
 * stem or a joined pair of neighbouring words, as the analyzer makes them),
 * the tools that ran successfully after a search with that term, each with
 * an evidence weight that halves every `halfLifeMs`. No query text is kept:
 * only terms and tool ids.
 *
 * Scoring a query sums, over its terms, each tool's share of the term's
 * evidence, scaled by how much evidence the term has: a term seen once
 * before one tool says little, a term seen twenty times before the same tool
 * says a lot, and a term spread over every tool (a "get") says nothing of
 * any of them.
 *
 * Whose evidence a search sees (its caller's own, and what several callers
 * agree on) is shared.ts's part.
 */

/** A tool's evidence under one term: its weight, and when it was last updated (ms since the epoch). */
export type Evidence = [weight: number, at: number];

/** One term's tools and their evidence. */
export type TermRow = Record<string, Evidence>;

export interface LearnSettings {
  /** How long evidence takes to lose half its weight. */
  halfLifeMs: number;
}

/** The most tools a term keeps: past it, the weakest go. */
export const MAX_TOOLS_PER_TERM = 24;

/** Evidence a term needs before it counts fully: below it, its shares are scaled down. */
const FULL_EVIDENCE = 2;

/** Weights below this (after decay) are forgotten. */
export const FORGOTTEN = 0.05;

/** The most negative a weight gets: a tool that failed many times is not buried for ever. */
export const FLOOR = -2;

/** `weight` decayed from `at` to `now`. */
export function decayed([weight, at]: Evidence, now: number, settings: LearnSettings): number {
  const age = Math.max(0, now - at);
  return weight * 0.5 ** (age / settings.halfLifeMs);
}

/** The row with `delta` added to `tool`'s evidence (decayed to now first); forgotten and excess tools dropped. */
export function addEvidence(row: TermRow | undefined, tool: string, delta: number, now: number, settings: LearnSettings): TermRow {
  const entries: [string, number][] = Object.entries(row ?? {}).map(([id, evidence]) => [id, decayed(evidence, now, settings)]);
  const at = entries.findIndex(([id]) => id === tool);
  if (at >= 0) entries[at]![1] = Math.max(FLOOR, entries[at]![1] + delta);
  else entries.push([tool, Math.max(FLOOR, delta)]);
  return boundRow(entries, now);
}

/**
 * Two processes' changes to one row, merged (a learning file both write, file-store.ts): what is on disk now plus what this
 * process added since it last read the row (`mine` − `base`), each tool's weight decayed to now, bounded as `addEvidence`.
 */
export function mergeRows(disk: TermRow | undefined, base: TermRow | undefined, mine: TermRow | undefined, now: number, settings: LearnSettings): TermRow {
  const weights = new Map<string, number>();
  const add = (row: TermRow | undefined, sign: number) => {
    for (const [id, evidence] of Object.entries(row ?? {})) weights.set(id, (weights.get(id) ?? 0) + sign * decayed(evidence, now, settings));
  };
  add(disk, 1);
  add(mine, 1);
  add(base, -1);
  return boundRow(
    [...weights].map(([id, weight]) => [id, Math.max(FLOOR, weight)]),
    now,
  );
}

/** Forgotten weights dropped, the strongest MAX_TOOLS_PER_TERM kept, all stamped `now`. */
function boundRow(entries: [string, number][], now: number): TermRow {
  const kept = entries
    .filter(([, weight]) => Math.abs(weight) >= FORGOTTEN)
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || a[0].localeCompare(b[0]))
    .slice(0, MAX_TOOLS_PER_TERM);
  return Object.fromEntries(kept.map(([id, weight]) => [id, [round(weight), now]]));
}

export interface LearnedScore {
  id: string;
  score: number;
}

/**
 * The tools a query's terms point to, best first. A tool's score is its
 * agreement with the query: over all `termCount` terms of the query (those
 * never learned count as zero), the average of each term's share of
 * evidence for it, each share scaled by how sure the term is (seen
 * `FULL_EVIDENCE` times or more). A query much like one that led to a tool
 * scores near 1 for it; a query that shares one common word with a past
 * search scores little. Tools `allowed` refuses are left out.
 */
export function scoreQuery(
  rows: ReadonlyMap<string, TermRow>,
  termCount: number,
  now: number,
  settings: LearnSettings,
  allowed: (id: string) => boolean,
): LearnedScore[] {
  const scores = new Map<string, number>();
  for (const row of rows.values()) {
    const weights = Object.entries(row).map(([id, e]) => [id, decayed(e, now, settings)] as const);
    const total = weights.reduce((sum, [, w]) => sum + Math.max(0, w), 0);
    if (total <= 0) continue;
    const certainty = Math.min(1, total / FULL_EVIDENCE);
    for (const [id, weight] of weights) {
      if (weight <= 0 || !allowed(id)) continue;
      scores.set(id, (scores.get(id) ?? 0) + (certainty * (weight / total)) / Math.max(termCount, rows.size));
    }
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score: round(score) })).sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
}

function round(weight: number): number {
  return Math.round(weight * 1000) / 1000;
}
