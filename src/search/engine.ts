/**
 * search_tools' domain side: filters, the ranking (the signals the mode
 * runs, signals/index.ts, fused by fusion.ts), exact totals and the
 * namespace distribution over the full match set. Presentation (hints, the
 * byte budget) belongs to the meta-tool that calls it.
 */
import { DEFAULTS } from "../config/defaults.js";
import type { SearchMode } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import { nearest } from "../text/suggest.js";
import { errorMessage } from "../util/errors.js";
import type { Logger } from "../util/log.js";
import { Bm25Ranker } from "./bm25.js";
import { ExactNames } from "./exact.js";
import { tagFilter } from "./filters.js";
import { fuseSignals, type FusionSettings } from "./fusion.js";
import type { IndexCache } from "./index-cache.js";
import { LexicalIndexes } from "./lexical.js";
import { buildingNote, chooseMode } from "./mode-choice.js";
import { isUnsure, mapOf, type MapEntry } from "./overview.js";
import type { SemanticIndex } from "./semantic.js";
import { createSignals, MODE_SIGNALS, type RankingMode, type SignalList, type SignalName, type SignalRequest, type SignalSources } from "./signals/index.js";
import { TUNING } from "./tuning.js";
import type { RankOptions } from "./types.js";

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
  mode: RankingMode;
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
  /** Set when the ranking is a guess: where the tool may be, with the names of the tools there (overview.ts). */
  map?: MapEntry[];
  /** A list was made another way than configured (the meaning ranked by the built-in embedder while the service failed); `modeNote` says why. */
  fellBack?: boolean;
}

export type { LearnedSource } from "./signals/index.js";
export type { FusionSettings } from "./fusion.js";

export const DEFAULT_FUSION: FusionSettings = { k: DEFAULTS.search.fusion.k, bm25Confidence: DEFAULTS.search.fusion.bm25Confidence };

/** What an engine is made with: what its signals read from outside (signals/index.ts; fusion defaults to DEFAULT_FUSION), and its indexes' settings. */
export interface EngineOptions extends Partial<Omit<SignalSources, "registry" | "bm25" | "exact">> {
  indexCache?: IndexCache;
  /** Told when a namespace built in the background fails. */
  logger?: Logger;
  /** Namespaces of this many tools or more are indexed in slices, in the background (lexical.ts; default SLICED_MIN_TOOLS). */
  slicedFrom?: number;
  /** Namespaces ranked by their words alone, never embedded. */
  wordsOnly?: ReadonlySet<string>;
}

export class SearchEngine {
  readonly bm25 = new Bm25Ranker();
  private readonly exact = new ExactNames();
  readonly semantic: SemanticIndex | undefined;
  private readonly fusion: FusionSettings;
  private readonly indexes: LexicalIndexes;
  /** Namespaces ranked by their words alone, never embedded. */
  private readonly wordsOnly: ReadonlySet<string>;
  private readonly signals: ReturnType<typeof createSignals>;

  constructor(
    private readonly registry: ToolRegistry,
    options: EngineOptions = {},
  ) {
    this.semantic = options.semantic;
    this.fusion = options.fusion ?? DEFAULT_FUSION;
    this.wordsOnly = options.wordsOnly ?? new Set();
    this.indexes = new LexicalIndexes(registry, this.bm25, this.exact, options.indexCache, options.logger, options.slicedFrom);
    this.signals = createSignals({ ...options, registry, bm25: this.bm25, exact: this.exact, fusion: this.fusion });
    registry.onChange((namespace, records) => this.replace(namespace, records));
    for (const { namespace } of registry.namespaces()) this.replace(namespace, registry.namespaceRecords(namespace));
  }

  private replace(namespace: string, records: readonly ToolRecord[]): void {
    this.indexes.replace(namespace, records, this.registry.aboutOf(namespace));
    // Plumbing namespaces (metatools' own read_output, read_resource) are reached by the calls replies give, and by their words:
    // ranked by meaning they would answer every "read a file".
    // A large namespace's words are indexed first (in slices), then its tools embedded: searchable by words as soon as can be.
    void this.semantic?.replaceNamespace(namespace, this.wordsOnly.has(namespace) ? [] : records, this.indexes.builtNamespace(namespace));
  }

  /** Writes what the index cache has pending (on close). */
  flush(): void {
    this.indexes.flush();
  }

  /** On close: builds in slices stop at their next slice (a server closing does not wait seconds for one), and the cache is written. */
  close(): void {
    this.indexes.close();
  }

  /** Whether a namespace's tools are embedded (ranked by meaning too), not ranked by their words alone. */
  embeds(namespace: string): boolean {
    return !!this.semantic && !this.wordsOnly.has(namespace);
  }

  /** Settles when every namespace is indexed: by its words (those built in slices, lexical.ts) and, with an embedder, by meaning. */
  async whenIdle(): Promise<void> {
    await this.indexes.whenBuilt();
    await this.semantic?.whenIdle();
    // Embedding may have run while a build finished, or the other way round: both quiet at once.
    await this.indexes.whenBuilt();
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
    const asked = { query, options, principal: request.principal };
    let { mode, note } = chooseMode(this.semantic, request.mode, (namespace) => !visible || known.has(namespace));
    // A very large namespace indexed in the background (lexical.ts): searched meanwhile as it was, and said so.
    const still = buildingNote(this.indexes.building.filter((namespace) => !visible || known.has(namespace)));
    if (!query || query === "*") mode = "browse";
    let lists: Map<SignalName, SignalList>;
    try {
      lists = await this.produce(mode, asked);
    } catch (error) {
      // A signal that cannot rank at all (embedding the query failed): that search is ranked with bm25, and says why.
      if (mode === "bm25" || mode === "browse") throw error;
      note = `${errorMessage(error)}; ranked with bm25`;
      mode = "bm25";
      lists = await this.produce(mode, asked);
    }
    // A list made another way than asked (the meaning ranked by a fallback embedder) says so.
    const listNotes = [...lists.values()].flatMap((list) => (list.note ? [list.note] : []));
    if (listNotes.length) note = [note, ...listNotes].filter(Boolean).join("; ");
    const fellBack = listNotes.length > 0;
    // Deep enough for the map when search is unsure (overview.ts); the page is cut from it.
    const depth = Math.max(options.top, TUNING.overview.pool);
    const result = fuseSignals([...lists.values()], { k: this.fusion.k, bm25Confidence: this.fusion.bm25Confidence, pool: TUNING.pool, top: depth });
    const byNamespace = [...result.counts.entries()]
      .map(([namespace, count]) => ({ namespace, count }))
      .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace));
    const hits: SearchHit[] = [];
    for (const r of result.hits.slice(request.offset, options.top)) {
      const record = this.registry.get(r.id);
      if (record) hits.push({ record, score: r.score });
    }
    const relaxed = [...lists.values()].some((list) => list.approximate === true);
    // A guess is said to be one, with a map of where the tool may be (overview.ts): on the first page of a search, not a browse.
    const map =
      mode !== "browse" && request.offset === 0 && result.hits.length > 0 && isUnsure(lists, relaxed)
        ? mapOf(
            result.hits.map((r) => this.registry.get(r.id)).filter((r): r is ToolRecord => r !== undefined),
            (namespace) => this.registry.namespaceRecords(namespace),
            options.accept,
          )
        : undefined;
    return {
      mode,
      modeNote: [note, still].filter(Boolean).join("; ") || undefined,
      relaxed,
      total: result.total,
      hits,
      byNamespace,
      unknownNamespaces,
      learned: this.raised(lists.get("learned"), hits),
      ...(map ? { map } : {}),
      ...(fellBack ? { fellBack } : {}),
    };
  }

  /**
   * The lists of the signals `mode` runs (signals/index.ts), the leader's
   * first. The others are produced first: the leader ranks only the page
   * when nothing is fused with it.
   */
  private async produce(mode: RankingMode, asked: Omit<SignalRequest, "fused">): Promise<Map<SignalName, SignalList>> {
    const [lead, ...rest] = MODE_SIGNALS[mode];
    const others = new Map<SignalName, SignalList>();
    for (const name of rest) {
      const list = await this.signals[name].produce({ ...asked, fused: true });
      if (list) others.set(name, list);
    }
    const leading = await this.signals[lead].produce({ ...asked, fused: [...others.values()].some((list) => !list.pinned) });
    return new Map(leading ? [[lead, leading], ...others] : others);
  }

  /** The tools among the first hits that the learned list put there (src/learn/ is told, to learn from what was passed over). */
  private raised(learned: SignalList | undefined, hits: readonly SearchHit[]): string[] {
    if (!learned) return [];
    const leading = new Set(hits.slice(0, TUNING.learned.shown).map((h) => h.record.id));
    return learned.hits
      .slice(0, TUNING.learned.shown)
      .map((h) => h.id)
      .filter((id) => leading.has(id));
  }

  /** Index words near a query's words, for hints when nothing matched at all. */
  nearTerms(query: string): string[] {
    const words = [...new Set(query.split(/\s+/).filter((w) => w.length > 2))].slice(0, TUNING.relaxed.maxWords);
    return [...new Set(words.flatMap((w) => this.bm25.nearTerms(w, 2)))].slice(0, 5);
  }
}
