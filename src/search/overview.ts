/**
 * A map for when search is unsure. Ranking always answers; it is not always
 * right, and an agent cannot tell a confident list from a guess. When the
 * evidence is weak (no word of the request matched a tool exactly, or the
 * words matched weakly and the signals' first tools disagree), the reply
 * adds the namespaces (or, inside one, the groups) its first hits fall in,
 * each with its tools' names: a page of where the tool might be, so the
 * agent can pick one, describe it, or search again scoped. Measured on the
 * public sets by `metatools eval` (how often the relevant tool is in the
 * hits or the map, and what the map costs; docs/retrieval.md).
 */
import type { ToolRecord } from "../model/tool.js";
import type { SignalName } from "./signals/index.js";
import type { SignalList } from "./signals/signal.js";
import { TUNING } from "./tuning.js";

/** One place the tool may be: a namespace, or a group inside one, with the names of its tools (as many as fit) and how many more it has. */
export interface MapEntry {
  namespace: string;
  group?: string;
  tools: string[];
  more: number;
  /** The ids of the tools named, for measuring (never shown). */
  ids: string[];
}

/** Whether the ranking is a guess: no exact word match, or a weak one the signals disagree on. A tool the query names is never a guess. */
export function isUnsure(lists: ReadonlyMap<SignalName, SignalList>, relaxed: boolean): boolean {
  if (lists.get("exact")?.hits.length) return false;
  if (relaxed) return true;
  const words = lists.get("bm25");
  if (!words?.hits.length) return true;
  const meaning = lists.get("semantic");
  if (!meaning?.hits.length) return false;
  return (words.strength ?? 0) < TUNING.overview.strength && words.hits[0]!.id !== meaning.hits[0]!.id;
}

/**
 * The places the first hits fall in, best first (each hit counting
 * 1 / its rank), each with its tools' names: those among the hits first,
 * then the rest by name, within the character budget shared by all.
 */
export function mapOf(hits: readonly ToolRecord[], toolsOf: (namespace: string) => readonly ToolRecord[], accept?: (id: string) => boolean): MapEntry[] {
  const { pool, units, chars } = TUNING.overview;
  const places = new Map<string, { namespace: string; group?: string; weight: number; ranked: ToolRecord[] }>();
  hits.slice(0, pool).forEach((record, rank) => {
    const key = `${record.namespace}\0${record.group ?? ""}`;
    const place = places.get(key) ?? { namespace: record.namespace, ...(record.group ? { group: record.group } : {}), weight: 0, ranked: [] };
    place.weight += 1 / (rank + 1);
    place.ranked.push(record);
    places.set(key, place);
  });
  const chosen = [...places.values()].sort((a, b) => b.weight - a.weight || a.namespace.localeCompare(b.namespace)).slice(0, units);
  let left = chars;
  return chosen.map((place) => {
    const group = place.group ?? "";
    // Each place gets its share of what is left, at least its best hit.
    const share = Math.max(1, Math.floor(left / (chosen.length - chosen.indexOf(place))));
    const seen = new Set(place.ranked.map((r) => r.id));
    // The rest by name, walked in an order made once per listing, only until the names (each with ", ") overflow the share.
    const members = groupsOf(toolsOf(place.namespace)).get(group) ?? [];
    const rest: ToolRecord[] = [];
    let need = place.ranked.reduce((sum, r) => sum + r.name.length + 2, 0);
    for (let i = 0; i < members.length && need <= share; i++) {
      const r = members[i]!;
      if (seen.has(r.id) || (accept && !accept(r.id))) continue;
      rest.push(r);
      need += r.name.length + 2;
    }
    const ordered = [...place.ranked, ...rest];
    // The hits are tools of the place that passed the filters: the place's whole count holds them.
    const total = Math.max(accept ? members.filter((r) => accept(r.id)).length : members.length, place.ranked.length);
    const shown: ToolRecord[] = [];
    let used = 0;
    for (const record of ordered) {
      if (shown.length && used + record.name.length + 2 > share) break;
      shown.push(record);
      used += record.name.length + 2;
    }
    left -= used;
    return {
      namespace: place.namespace,
      ...(place.group ? { group: place.group } : {}),
      tools: shown.map((r) => r.name),
      more: total - shown.length,
      ids: shown.map((r) => r.id),
    };
  });
}

/** A namespace's tools by group ("" for none), each in name order: made once per listing (the registry gives a new array when a namespace changes). */
const byGroup = new WeakMap<readonly ToolRecord[], Map<string, ToolRecord[]>>();
/** Made at the first listing: an ICU collator costs milliseconds to make, and most commands list nothing. */
let collator: Intl.Collator | undefined;

function groupsOf(records: readonly ToolRecord[]): Map<string, ToolRecord[]> {
  let groups = byGroup.get(records);
  if (groups) return groups;
  groups = new Map();
  for (const r of records) {
    const key = r.group ?? "";
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(r);
  }
  for (const list of groups.values()) list.sort((a, b) => (collator ??= new Intl.Collator()).compare(a.name, b.name));
  byGroup.set(records, groups);
  return groups;
}
