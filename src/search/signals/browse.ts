/** An empty query (or `*`): every tool that passes the filters, by id. */
import type { ToolRegistry } from "../../registry/registry.js";
import { namespaceOf } from "../../model/tool.js";
import { passes } from "../filters.js";
import type { Ranked } from "../types.js";
import type { RankingSignal, SignalList, SignalRequest } from "./signal.js";

export class BrowseSignal implements RankingSignal {
  /** Every id, sorted; dropped at a change. */
  private sortedIds: string[] | undefined;

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange(() => (this.sortedIds = undefined));
  }

  produce({ options }: SignalRequest): SignalList {
    const counts = new Map<string, number>();
    const hits: Ranked[] = [];
    for (const id of (this.sortedIds ??= [...this.registry.ids()].sort())) {
      if (!passes(id, options)) continue;
      const namespace = namespaceOf(id) ?? "";
      counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
      if (hits.length < options.top) hits.push({ id, score: 0 });
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    return { hits, weight: 1, matches: { total, counts } };
  }
}
