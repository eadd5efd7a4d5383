/**
 * What a search lets through: the request's namespaces and tags, and the
 * caller's profile. Every signal (signals/) ranks within these filters.
 */
import type { ToolRegistry } from "../registry/registry.js";
import type { RankOptions } from "./types.js";
import { namespaceOf } from "../model/tool.js";

/** Whether `id` passes the request's namespace and tag filters. */
export function passes(id: string, options: RankOptions): boolean {
  return (!options.namespaces || options.namespaces.has(namespaceOf(id) ?? "")) && (!options.accept || options.accept(id));
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

/** How many of `ids` each namespace holds, added to `into`. */
export function countByNamespace(ids: Iterable<string>, into = new Map<string, number>()): Map<string, number> {
  for (const id of ids) {
    const namespace = namespaceOf(id) ?? "";
    into.set(namespace, (into.get(namespace) ?? 0) + 1);
  }
  return into;
}
