/**
 * search_tools' domain side: filters, ranking, exact totals and the
 * namespace distribution over the full match set. Presentation (hints, the
 * byte budget) belongs to the meta-tool that calls it.
 */
import { DEFAULTS } from "../config/defaults.js";
import type { SearchMode } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import { errorMessage } from "../util/errors.js";
import { Bm25Ranker } from "./bm25.js";
import { ExactNames, promoteNamed } from "./exact.js";
import type { FusionList } from "./fusion.js";
import { fromHits, fuseLearned, fuseLegs, similar } from "./hybrid.js";
import type { IndexCache } from "./index-cache.js";
import { LexicalIndexes } from "./lexical.js";
import { fuseParts, queryParts } from "./query-parts.js";
import type { SemanticIndex } from "./semantic.js";
import { nearest } from "../text/suggest.js";
import { RELAXED } from "./tuning.js";
import { browse, learnedList, passes, tagFilter, type LearnedSource } from "./filters.js";
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
  /** Who asks (src/security/principal.ts): what was learned from use ranks by whose it is. Unset: the local user. */
  principal?: string;
  /** The tools the caller may see (its profile, src/security/profiles.ts); the others are in no hit, total, count or suggestion. Unset: all. */
  visible?: (id: string) => boolean;
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
  /** Tools among the first hits that what was learned from use put there (src/learn/). */
  learned: string[];
}

export type { LearnedSource } from "./filters.js";
/** How many candidates each leg contributes to a fused ranking, at least. */
const POOL = 100;
/** The first hits a search's learned tools are looked for among (what the agent sees first). */
const LEARNED_SHOWN = 3;

export interface FusionSettings {
  /** RRF's k. */
  k: number;
  /** The semantic list's weight when no word matches; BM25's is 1. Undefined: the embedder's own (`Embedder.fusionWeight`). */
  semanticWeight?: number;
  /** The BM25 top score at which the semantic weight is halved: the better the words match, the less meaning has to. */
  bm25Confidence: number;
}

export const DEFAULT_FUSION: FusionSettings = { k: DEFAULTS.search.fusion.k, bm25Confidence: DEFAULTS.search.fusion.bm25Confidence };

export class SearchEngine {
  readonly bm25 = new Bm25Ranker();
  private readonly exact = new ExactNames();
  /** Every id, sorted, for browsing with an empty query; rebuilt after a change. */
  private sortedIds: string[] | undefined;

  readonly semantic: SemanticIndex | undefined;
  private readonly fusion: FusionSettings;
  private readonly indexes: LexicalIndexes;
  /** Namespaces ranked by their words alone, never embedded. */
  private readonly wordsOnly: ReadonlySet<string>;
  /** What was learned from use; undefined when learning is off. */
  private readonly learned: LearnedSource | undefined;

  constructor(
    private readonly registry: ToolRegistry,
    options: { semantic?: SemanticIndex; fusion?: FusionSettings; indexCache?: IndexCache; wordsOnly?: ReadonlySet<string>; learned?: LearnedSource } = {},
  ) {
    this.semantic = options.semantic;
    this.learned = options.learned;
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    this.wordsOnly = options.wordsOnly ?? new Set();
    this.indexes = new LexicalIndexes(registry, this.bm25, this.exact, options.indexCache);
    registry.onChange((namespace, records) => this.replace(namespace, records));
    for (const { namespace } of registry.namespaces()) this.replace(namespace, registry.namespaceRecords(namespace));
  }

  private replace(namespace: string, records: readonly ToolRecord[]): void {
    this.sortedIds = undefined;
    this.indexes.replace(namespace, records);
    // Plumbing namespaces (metatools' own read_output, read_resource) are reached by the calls replies give, and by their words:
    // ranked by meaning they would answer every "read a file".
    void this.semantic?.replaceNamespace(namespace, this.wordsOnly.has(namespace) ? [] : records);
  }

  /** Writes what the index cache has pending (on close). */
  flush(): void {
    this.indexes.flush();
  }

  /** Whether a namespace's tools are embedded (ranked by meaning too), not ranked by their words alone. */
  embeds(namespace: string): boolean {
    return !!this.semantic && !this.wordsOnly.has(namespace);
  }

  /** Settles when every index taken from the index cache at start has been checked against its tools. */
  whenChecked(): Promise<void> {
    return this.indexes.whenChecked();
  }

  async search(request: SearchRequest): Promise<SearchOutcome> {
    const visible = request.visible;
    const known = new Set(
      this.registry
        .namespaces()
        .filter((n) => !visible || this.registry.namespaceRecords(n.namespace).some((r) => visible(r.id)))
        .map((n) => n.namespace),
    );
    const tagged = tagFilter(this.registry, request.tags);
    const unknownNamespaces = request.namespaces
      .filter((ns) => !known.has(ns))
      .map((namespace) => ({ namespace, suggestions: nearest(namespace, known, 3, 0.3) }));
    const options: RankOptions = {
      namespaces: request.namespaces.length ? new Set(request.namespaces) : undefined,
      accept: visible && tagged ? (id) => visible(id) && tagged(id) : (visible ?? tagged),
      top: request.offset + request.limit,
    };
    const query = request.query.trim();
    let { mode: chosen, note } = this.chooseMode(request.mode, (namespace) => !visible || known.has(namespace));
    // Embedding the query can fail (a model runtime that died): that search falls back to BM25 and says why.
    const denseHits =
      query && query !== "*" && chosen !== "bm25"
        ? await this.semantic!.search(query, { ...options, top: POOL }).catch((error: unknown) => {
            note = `embedding the query failed (${errorMessage(error)}); ranked with bm25`;
            chosen = "bm25";
            return [];
          })
        : [];
    const dense = similar(denseHits);
    // No history: no list, and the ranking is exactly what it was without learning.
    const learned = query && query !== "*" && chosen !== "semantic" ? await this.learnedList(query, options, request.principal) : undefined;
    let mode: SearchOutcome["mode"] = chosen;
    let result: RankResult;
    let relaxed = false;
    if (!query || query === "*") {
      mode = "browse";
      result = browse((this.sortedIds ??= [...this.registry.ids()].sort()), options);
    } else if (chosen === "bm25") {
      const lexical = this.lexical(query, learned ? { ...options, top: Math.max(POOL, options.top) } : options);
      relaxed = lexical.relaxed;
      result = learned
        ? fuseLearned(lexical, learned, { k: this.fusion.k, pool: POOL, top: options.top, bm25Confidence: this.fusion.bm25Confidence })
        : lexical;
    } else {
      if (chosen === "semantic") result = fromHits(dense, options.top);
      else {
        const lexical = this.lexical(query, { ...options, top: Math.max(POOL, options.top) });
        relaxed = lexical.relaxed;
        result = this.fuse(lexical, dense, options.top, learned);
      }
    }
    if (mode !== "browse") result = promoteNamed(result, this.named(query, result, options), options.top);
    const byNamespace = [...result.counts.entries()]
      .map(([namespace, count]) => ({ namespace, count }))
      .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace));
    const hits: SearchHit[] = [];
    for (const r of result.hits.slice(request.offset)) {
      const record = this.registry.get(r.id);
      if (record) hits.push({ record, score: r.score });
    }
    const leading = new Set(hits.slice(0, LEARNED_SHOWN).map((h) => h.record.id));
    const raised = learned
      ? learned.hits
          .slice(0, LEARNED_SHOWN)
          .map((h) => h.id)
          .filter((id) => leading.has(id))
      : [];
    return { mode, modeNote: note, relaxed, total: result.total, hits, byNamespace, unknownNamespaces, learned: raised };
  }

  /** The learned list for a query (filters.ts), weighted by its agreement; undefined when nothing learned applies. */
  private async learnedList(query: string, options: RankOptions, principal?: string): Promise<FusionList | undefined> {
    return this.learned && learnedList(this.learned, query, (id) => this.registry.get(id) !== undefined && passes(id, options), principal);
  }

  /** The mode a request gets: auto is hybrid when an embedder is configured and working, else BM25. */
  private chooseMode(requested: SearchMode, seen: (namespace: string) => boolean): { mode: "bm25" | "semantic" | "hybrid"; note?: string } {
    const wantsVectors = requested === "semantic" || requested === "hybrid";
    if (!this.semantic) {
      return wantsVectors
        ? {
            mode: "bm25",
            note: `mode "${requested}" needs an embedder, and metatools.search.embedder is false in this config; ranked with bm25. Remove that line to use the built-in one (docs/retrieval.md)`,
          }
        : { mode: "bm25" };
    }
    if (this.semantic.error) return { mode: "bm25", note: `semantic search is unavailable (${this.semantic.error}); ranked with bm25` };
    const mode = requested === "auto" ? "hybrid" : requested;
    // Only namespaces the caller may see are named (src/meta/scoped.ts).
    const indexing = this.semantic.indexing.filter(seen);
    return {
      mode,
      note: indexing.length && mode !== "bm25" ? `still embedding ${indexing.join(", ")}: their tools are ranked by bm25 alone until done` : undefined,
    };
  }

  /**
   * BM25, falling back to prefix and typo-tolerant matching when nothing
   * matches strictly. A request in several parts is also ranked part by
   * part, and the rankings fused (query-parts.ts); the match set, its total
   * and counts stay the whole request's, which holds every part's words.
   */
  private lexical(query: string, options: RankOptions): RankResult & { relaxed: boolean; best: number } {
    const parts = queryParts(query).slice(1);
    // Parts are fused over a fixed pool, so the whole ranking is ranked that deep whatever the page.
    const strict = this.bm25.rank(query, parts.length ? { ...options, top: Math.max(POOL, options.top) } : options);
    if (strict.total && parts.length) {
      const ranked = parts.map((part) => this.bm25.rank(part, { ...options, top: POOL }).hits.filter((h) => strict.contains?.(h.id) !== false));
      return { ...strict, hits: fuseParts(strict.hits, ranked, this.fusion.k, POOL, options.top), relaxed: false, best: strict.hits[0]?.score ?? 0 };
    }
    if (strict.total) return { ...strict, relaxed: false, best: strict.hits[0]?.score ?? 0 };
    const loose = this.bm25.rankRelaxed(query, options);
    return { ...loose, relaxed: loose.total > 0, best: loose.hits[0]?.score ?? 0 };
  }

  /** The two legs fused (hybrid.ts), the semantic list weighted by the embedder's trust. */
  private fuse(lexical: RankResult & { best: number }, dense: readonly Ranked[], top: number, learned?: FusionList): RankResult {
    const trust = this.fusion.semanticWeight ?? this.semantic?.embedder?.fusionWeight ?? DEFAULTS.search.fusion.semanticWeight;
    return fuseLegs(lexical, dense, { k: this.fusion.k, trust, bm25Confidence: this.fusion.bm25Confidence, pool: POOL, top }, learned);
  }

  /** The tools the query names exactly (exact.ts) that the filters let through, in the order ranking gave them. */
  private named(query: string, result: RankResult, options: RankOptions): string[] {
    const order = new Map(result.hits.map((h, i) => [h.id, i]));
    return this.exact
      .match(query, (id) => order.get(id) ?? order.size)
      .filter((id) => (!options.namespaces || options.namespaces.has(id.slice(0, id.indexOf(":")))) && (!options.accept || options.accept(id)));
  }

  /** Index words near a query's words, for hints when nothing matched at all. */
  nearTerms(query: string): string[] {
    const words = [...new Set(query.split(/\s+/).filter((w) => w.length > 2))].slice(0, RELAXED.maxWords);
    return [...new Set(words.flatMap((w) => this.bm25.nearTerms(w, 2)))].slice(0, 5);
  }
}
