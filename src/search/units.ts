/**
 * What a namespace says as a whole: its server's words about itself (title,
 * description, instructions) and every word its tools hold, one document per unit (a
 * namespace, or each group of a namespace of groups, as a catalog of many
 * APIs has). A query's words score the units as they score tools (BM25), and
 * a tool's score is multiplied by (1 + weight × its unit's share of the best
 * unit's score) / (1 + weight): the tools of the unit the request speaks to
 * keep their scores, the others lose up to weight / (1 + weight). So "which
 * files are staged" leans toward git even where a filesystem tool says
 * "files" more often, and a tool whose own words match strongly still wins
 * from another unit. With one unit, or no unit matched, nothing changes.
 */
import type { ToolRecord } from "../model/tool.js";
import { InvertedIndex, type Boosts, type IndexQuery } from "./inverted.js";
import type { Segment } from "./segment.js";
import { TUNING } from "./tuning.js";

export class UnitIndex {
  private readonly index = new InvertedIndex();
  /** Per namespace: the unit of each tool (by its place in the namespace's records), and the units' ids in the index. */
  private readonly layout = new Map<string, { unitOf: Uint32Array; units: string[] }>();

  /**
   * Indexes a namespace's units from its tools' index segment (documents in
   * its records' order): a unit's words are every word its tools hold, and
   * `about`, what the namespace's server says of itself, analyzed.
   */
  replace(namespace: string, records: readonly ToolRecord[], segment: Segment | undefined, about: readonly string[]): void {
    if (!records.length || !segment) {
      this.layout.delete(namespace);
      this.index.install(namespace, undefined);
      return;
    }
    const byUnit = new Map<string, number>();
    const units: string[] = [];
    const unitOf = new Uint32Array(records.length);
    records.forEach((record, i) => {
      const key = record.group ?? "";
      let u = byUnit.get(key);
      if (u === undefined) byUnit.set(key, (u = units.push(`${namespace}\u0000${key}`) - 1));
      unitOf[i] = u;
    });
    const words: string[][] = units.map(() => []);
    // Each unit takes a term once: the number of the last term each unit took is all there is to remember.
    const last = new Int32Array(units.length).fill(-1);
    const { starts, docs } = segment;
    for (const [term, t] of segment.terms) {
      for (let i = starts[t]!; i < starts[t + 1]!; i++) {
        const u = unitOf[docs[i]!]!;
        if (last[u] === t) continue;
        last[u] = t;
        words[u]!.push(term);
      }
    }
    this.layout.set(namespace, { unitOf, units });
    this.index.replace(namespace, units.length, (u) => ({
      id: units[u]!,
      fields: [
        { terms: about, weight: TUNING.units.about },
        { terms: words[u]!, weight: TUNING.units.tools },
      ],
    }));
  }

  /** The multipliers for a query, over the namespaces searched; undefined when fewer than two units exist there or none matched. */
  boosts(query: IndexQuery, namespaces: ReadonlySet<string> | undefined): Boosts | undefined {
    const weight = TUNING.units.weight;
    if (!weight) return undefined;
    let units = 0;
    for (const [namespace, { units: list }] of this.layout) if (!namespaces || namespaces.has(namespace)) units += list.length;
    if (units < 2) return undefined;
    const scored = this.index.score(query, { ...TUNING.score, b: TUNING.units.b }, { namespaces, top: TUNING.units.scored });
    const best = scored.hits[0]?.score ?? 0;
    if (best <= 0) return undefined;
    const share = new Map(scored.hits.map((h) => [h.id, h.score / best]));
    return (namespace) => {
      const layout = this.layout.get(namespace);
      if (!layout) return undefined;
      const factors = layout.units.map((id) => (1 + weight * (share.get(id) ?? 0)) / (1 + weight));
      return (doc) => factors[layout.unitOf[doc]!] ?? 1;
    };
  }
}
