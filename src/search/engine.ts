/**
 * search_tools' domain side: filters, ranking, exact totals and the
 * namespace distribution over the full match set. Presentation (hints, the
 * byte budget) belongs to the meta-tool that calls it.
 */
import type { SearchMode } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import { Bm25Ranker } from "./bm25.js";
import { nearest } from "./suggest.js";
import type { RankOptions, RankResult, Ranked } from "./types.js";

export interface SearchRequest {
  query: string;
  limit: number;
  offset: number;
  /** Empty: every namespace. */
  namespaces: string[];
  /** A tool must carry every tag (case-insensitive). Empty: no tag filter. */
  tags: string[];
  mode: SearchMode;
}

export interface SearchHit {
  record: ToolRecord;
  score: number;
}

export interface SearchOutcome {
  /** The ranking that produced the hits: `browse` lists every tool for an empty query. */
  mode: "bm25" | "semantic" | "hybrid" | "browse";
  /** Set when the requested mode could not be honoured, saying why. */
  modeNote?: string;
  /** Strict matching found nothing, so prefix and typo-tolerant matching ran instead. */
  relaxed: boolean;
  total: number;
  hits: SearchHit[];
  byNamespace: { namespace: string; count: number }[];
  unknownNamespaces: { namespace: string; suggestions: string[] }[];
}

export class SearchEngine {
  readonly bm25 = new Bm25Ranker();
  /** Every id, sorted, for browsing with an empty query; rebuilt after a change. */
  private sortedIds: string[] | undefined;

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange((namespace, records) => {
      this.bm25.replaceNamespace(namespace, records);
      this.sortedIds = undefined;
    });
    for (const { namespace } of registry.namespaces()) this.bm25.replaceNamespace(namespace, registry.namespaceRecords(namespace));
  }

  search(request: SearchRequest): SearchOutcome {
    const known = new Set(this.registry.namespaces().map((n) => n.namespace));
    const unknownNamespaces = request.namespaces
      .filter((ns) => !known.has(ns))
      .map((namespace) => ({ namespace, suggestions: nearest(namespace, known, 3, 0.3) }));
    const options: RankOptions = {
      namespaces: request.namespaces.length ? new Set(request.namespaces) : undefined,
      accept: this.tagFilter(request.tags),
      top: request.offset + request.limit,
    };
    const query = request.query.trim();
    let mode: SearchOutcome["mode"] = "bm25";
    let modeNote: string | undefined;
    if (request.mode === "semantic" || request.mode === "hybrid") {
      modeNote = `mode "${request.mode}" needs an embedding index, which is not configured; ranked with bm25`;
    }
    let result: RankResult;
    let relaxed = false;
    if (!query || query === "*") {
      mode = "browse";
      result = this.browse(options);
    } else {
      result = this.bm25.rank(query, options);
      if (!result.total) {
        result = this.bm25.rankRelaxed(query, options);
        relaxed = result.total > 0;
      }
    }
    const byNamespace = [...result.counts.entries()]
      .map(([namespace, count]) => ({ namespace, count }))
      .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace));
    const hits: SearchHit[] = [];
    for (const r of result.hits.slice(request.offset)) {
      const record = this.registry.get(r.id);
      if (record) hits.push({ record, score: r.score });
    }
    return { mode, modeNote, relaxed, total: result.total, hits, byNamespace, unknownNamespaces };
  }

  /** Index words near a query's words, for hints when nothing matched at all. */
  nearTerms(query: string): string[] {
    const words = query.split(/\s+/).filter((w) => w.length > 2);
    return [...new Set(words.flatMap((w) => this.bm25.nearTerms(w, 2)))].slice(0, 5);
  }

  private tagFilter(tags: readonly string[]): ((id: string) => boolean) | undefined {
    if (!tags.length) return undefined;
    const wanted = tags.map((t) => t.toLowerCase());
    return (id) => {
      const record = this.registry.get(id);
      if (!record) return false;
      const have = new Set(record.tags.map((t) => t.toLowerCase()));
      return wanted.every((t) => have.has(t));
    };
  }

  /** Every tool that passes the filters, by id. */
  private browse(options: RankOptions): RankResult {
    this.sortedIds ??= [...this.registry.ids()].sort();
    const counts = new Map<string, number>();
    const hits: Ranked[] = [];
    for (const id of this.sortedIds) {
      const namespace = id.slice(0, id.indexOf(":"));
      if (options.namespaces && !options.namespaces.has(namespace)) continue;
      if (options.accept && !options.accept(id)) continue;
      counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
      if (hits.length < options.top) hits.push({ id, score: 0 });
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    return { total, hits, counts };
  }
}
