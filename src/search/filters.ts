/**
 * What a search lets through and what it adds beside its rankers: the tag
 * filter, browsing every tool for an empty query, and the list of tools what
 * was learned from use points to (src/learn/), weighted for fusion.
 */
import type { ToolRegistry } from "../registry/registry.js";
import type { FusionList } from "./fusion.js";
import { LEARNED } from "./tuning.js";
import type { RankOptions, RankResult, Ranked } from "./types.js";

/** What search learned from use (src/learn/learner.ts). */
export interface LearnedSource {
  /** Tools with their agreement with the query (0–1: how much of it led to them before), for `principal`'s search, best first. */
  rank(query: string, allowed: (id: string) => boolean, principal?: string): Promise<{ hits: Ranked[] }>;
}

/** Whether `id` passes the request's namespace and tag filters. */
export function passes(id: string, options: RankOptions): boolean {
  return (!options.namespaces || options.namespaces.has(id.slice(0, id.indexOf(":")))) && (!options.accept || options.accept(id));
}

/** A tool must carry every tag (case-insensitive); undefined when no tag is asked for. */
export function tagFilter(registry: ToolRegistry, tags: readonly string[]): ((id: string) => boolean) | undefined {
  if (!tags.length) return undefined;
  const wanted = tags.map((t) => t.toLowerCase());
  return (id) => {
    const record = registry.get(id);
    if (!record) return false;
    const have = new Set(record.tags.map((t) => t.toLowerCase()));
    return wanted.every((t) => have.has(t));
  };
}

/** Every tool that passes the filters, by id (`sortedIds` in order). */
export function browse(sortedIds: readonly string[], options: RankOptions): RankResult {
  const counts = new Map<string, number>();
  const hits: Ranked[] = [];
  for (const id of sortedIds) {
    if (!passes(id, options)) continue;
    const namespace = id.slice(0, id.indexOf(":"));
    counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
    if (hits.length < options.top) hits.push({ id, score: 0 });
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  return { total, hits, counts };
}

/**
 * The learned list for a query, weighted by its best tool's agreement
 * (tuning.ts, LEARNED); undefined below the floor, and always with no
 * history, so a catalog nobody has used ranks exactly as without learning.
 * Only tools `allowed` lets through (in the registry, so never a
 * quarantined or removed one; within the request's filters). What it holds
 * depends on who asks (`principal`): see src/learn/shared.ts.
 */
export async function learnedList(source: LearnedSource, query: string, allowed: (id: string) => boolean, principal?: string): Promise<FusionList | undefined> {
  const { hits } = await source.rank(query, allowed, principal);
  const top = hits[0]?.score ?? 0;
  if (top < LEARNED.floor) return undefined;
  return { hits: hits.slice(0, LEARNED.depth), weight: (LEARNED.trust * top ** 2) / (top ** 2 + LEARNED.halfAgreement ** 2) };
}
