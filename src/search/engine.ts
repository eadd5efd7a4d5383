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
import type { Ranked } from "./types.js";

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

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange((namespace, records) => this.bm25.replaceNamespace(namespace, records));
    const namespaces = registry.namespaces().map((n) => n.namespace);
    for (const namespace of namespaces) this.bm25.replaceNamespace(namespace, registry.namespaceRecords(namespace));
  }

  search(request: SearchRequest): SearchOutcome {
    const known = new Set(this.registry.namespaces().map((n) => n.namespace));
    const unknownNamespaces = request.namespaces
      .filter((ns) => !known.has(ns))
      .map((namespace) => ({ namespace, suggestions: nearest(namespace, known, 3, 0.3) }));
    const accept = this.filter(request);
    const query = request.query.trim();
    let mode: SearchOutcome["mode"] = "bm25";
    let modeNote: string | undefined;
    if (request.mode === "semantic" || request.mode === "hybrid") {
      modeNote = `mode "${request.mode}" needs an embedding index, which is not configured; ranked with bm25`;
    }
    let ranked: Ranked[];
    let relaxed = false;
    if (!query || query === "*") {
      mode = "browse";
      ranked = this.browse(accept);
    } else {
      ranked = this.bm25.rank(query, accept);
      if (!ranked.length) {
        ranked = this.bm25.rankRelaxed(query, accept);
        relaxed = ranked.length > 0;
      }
    }
    const counts = new Map<string, number>();
    for (const { id } of ranked) {
      const ns = id.slice(0, id.indexOf(":"));
      counts.set(ns, (counts.get(ns) ?? 0) + 1);
    }
    const byNamespace = [...counts.entries()]
      .map(([namespace, count]) => ({ namespace, count }))
      .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace));
    const hits: SearchHit[] = [];
    for (const r of ranked.slice(request.offset, request.offset + request.limit)) {
      const record = this.registry.get(r.id);
      if (record) hits.push({ record, score: r.score });
    }
    return { mode, modeNote, relaxed, total: ranked.length, hits, byNamespace, unknownNamespaces };
  }

  /** Index terms near a query's words, for hints when nothing matched at all. */
  nearTerms(query: string): string[] {
    const words = query.split(/\s+/).filter((w) => w.length > 2);
    return [...new Set(words.flatMap((w) => this.bm25.nearTerms(w, 2)))].slice(0, 5);
  }

  private filter(request: SearchRequest): (id: string) => boolean {
    const namespaces = request.namespaces.length ? new Set(request.namespaces) : undefined;
    const tags = request.tags.map((t) => t.toLowerCase());
    if (!namespaces && !tags.length) return () => true;
    return (id) => {
      if (namespaces && !namespaces.has(id.slice(0, id.indexOf(":")))) return false;
      if (!tags.length) return true;
      const record = this.registry.get(id);
      if (!record) return false;
      const have = new Set(record.tags.map((t) => t.toLowerCase()));
      return tags.every((t) => have.has(t));
    };
  }

  private browse(accept: (id: string) => boolean): Ranked[] {
    const ids = [...this.registry.ids()].filter(accept).sort();
    return ids.map((id) => ({ id, score: 0 }));
  }
}
