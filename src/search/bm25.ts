/**
 * The BM25 ranker: analyzes tools into the inverted index one namespace at
 * a time, as backends come, go and change, and analyzes queries the same
 * way. When no query word matches exactly, a relaxed pass expands each word
 * to the index terms it prefixes or nearly spells.
 */
import type { ToolRecord } from "../model/tool.js";
import { createAnalyzer, fold, splitWords } from "../text/analyze.js";
import { SEARCH_FIELDS, toDocument, type SearchDocument, type SearchField } from "./documents.js";
import { InvertedIndex, type IndexQuery } from "./inverted.js";
import type { PreparedNamespace } from "./segment-file.js";
import { buildSegmentInSlices, type IndexedDoc } from "./segment.js";
import type { Slices } from "../util/turn.js";
import { editDistance } from "../text/suggest.js";
import { TUNING } from "./tuning.js";
import { UnitIndex } from "./units.js";
import type { RankOptions, RankResult, Ranker } from "./types.js";

/** Fields whose words are shown back to agents as suggestions ("did you mean…"). */
const SURFACE: ReadonlySet<SearchField> = new Set(["name", "title", "summary", "tags", "aliases"]);

export class Bm25Ranker implements Ranker {
  readonly mode = "bm25" as const;
  private readonly index = new InvertedIndex();
  private readonly units = new UnitIndex();
  private readonly analyzer = createAnalyzer();
  /** A stem as a person writes it (`repositori` → `repository`), for suggestions; per namespace, so a namespace's words go with it. */
  private readonly surfaces = new Map<string, Map<string, string>>();

  get size(): number {
    return this.index.size;
  }

  /**
   * Indexes a namespace's tools (`docs`: their search documents, when the
   * caller made them already; else each is made as it is indexed). Returns
   * what was built, for the index cache.
   */
  replaceNamespace(
    namespace: string,
    records: readonly ToolRecord[],
    docs?: readonly SearchDocument[],
    about = "",
  ): Pick<PreparedNamespace, "segment" | "surface"> | undefined {
    const surface = new Map<string, string>();
    this.index.replace(namespace, records.length, this.documentsOf(records, docs, surface));
    this.setSurface(namespace, surface);
    const segment = this.index.segment(namespace);
    this.units.replace(namespace, records, segment, this.analyzer.analyze(about));
    return segment && { segment, surface: [...surface] };
  }

  /**
   * What `replaceNamespace` builds, built in slices that let searches in
   * (../util/turn.ts), and not installed: the caller installs it
   * (`installNamespace`) if it is still wanted when done.
   */
  async prepareInSlices(
    records: readonly ToolRecord[],
    docs: readonly SearchDocument[],
    slices: Slices,
  ): Promise<Pick<PreparedNamespace, "segment" | "surface">> {
    const surface = new Map<string, string>();
    const segment = await buildSegmentInSlices(records.length, this.documentsOf(records, docs, surface), slices);
    return { segment, surface: [...surface] };
  }

  /** A namespace's tools as the index takes them, one at a time; the words shown back as suggestions are learned into `surface`. */
  private documentsOf(records: readonly ToolRecord[], docs: readonly SearchDocument[] | undefined, surface: Map<string, string>): (i: number) => IndexedDoc {
    // A stem as first written in the fields shown back: the word it was analyzed from, folded.
    const learn = (stem: string, raw: string) => {
      if (!surface.has(stem)) surface.set(stem, fold(raw));
    };
    return (i) => {
      const record = records[i]!;
      const doc = docs?.[i] ?? toDocument(record);
      return {
        id: record.id,
        fields: SEARCH_FIELDS.map((f) => ({ terms: this.analyzer.analyze(doc[f], SURFACE.has(f) ? learn : undefined), weight: TUNING.fieldBoosts[f] })),
        prior: doc.prior ?? 1,
      };
    };
  }

  /** Makes now what a namespace's first searches would make (inverted.ts `warm`): after a build in the background. */
  warm(namespace: string): void {
    this.index.warm(namespace);
  }

  /** Installs a namespace's index as built before (index-cache.ts). */
  installNamespace(namespace: string, prepared: Pick<PreparedNamespace, "segment" | "surface">, records: readonly ToolRecord[], about = ""): void {
    this.index.install(namespace, prepared.segment);
    this.units.replace(namespace, records, prepared.segment, this.analyzer.analyze(about));
    this.setSurface(namespace, new Map(prepared.surface));
  }

  rank(query: string, options: RankOptions): RankResult {
    const counts = new Map<string, number>();
    const pairs = new Set<string>();
    for (const term of this.analyzer.analyzeQuery(query, pairs)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const terms = new Map<string, number>();
    for (const [term, n] of counts) {
      const verb = counts.size > 1 && TUNING.actionVerbs.stems.has(term) ? TUNING.actionVerbs.weight : 1;
      terms.set(term, (1 + TUNING.queryRepeat.weight * Math.log(n)) * verb);
    }
    const words = new Set([...terms.keys()].filter((t) => !pairs.has(t)));
    return this.score({ terms, words }, options);
  }

  /**
   * The fallback when strict matching finds nothing: raw words (stop words
   * kept), each expanded to the index terms it prefixes or nearly spells,
   * so `a`, `gti` or `repo` still lead somewhere.
   */
  rankRelaxed(query: string, options: RankOptions): RankResult {
    const terms = new Map<string, number>();
    const words = new Set<string>();
    for (const raw of [...new Set(splitWords(query).map(fold))].slice(0, TUNING.relaxed.maxWords)) {
      for (const [term, weight] of this.expand(raw)) {
        terms.set(term, Math.max(terms.get(term) ?? 0, weight));
        words.add(term);
      }
    }
    return this.score({ terms, words }, options);
  }

  /** Words in the index close to `word` (typo-tolerant), as people write them, most common first. */
  nearTerms(word: string, limit = 3): string[] {
    const stems = [...this.expand(fold(word))].filter(([term]) => this.surfaceOf(term) !== undefined).map(([term]) => term);
    const vocabulary = this.index.vocabulary();
    stems.sort((a, b) => (vocabulary.get(b) ?? 0) - (vocabulary.get(a) ?? 0));
    return [...new Set(stems.map((s) => this.surfaceOf(s)!))].slice(0, limit);
  }

  private score(query: IndexQuery, options: RankOptions): RankResult {
    return this.index.score(query, TUNING.score, options, this.units.boosts(query, options.namespaces));
  }

  /** Index terms for one folded word: itself and its stem, terms it prefixes, and near spellings; each with a weight. */
  private expand(word: string): Map<string, number> {
    const out = new Map<string, number>();
    if (!word) return out;
    const stem = this.analyzer.word(word);
    const maxEdits = word.length >= 8 ? 2 : word.length >= 4 ? 1 : 0;
    const candidates: { term: string; weight: number; df: number }[] = [];
    for (const [term, df] of this.index.vocabulary()) {
      if (term === word || term === stem) out.set(term, 1);
      else if (term.startsWith(word)) candidates.push({ term, weight: TUNING.relaxed.prefix, df });
      else if (maxEdits && Math.abs(term.length - word.length) <= maxEdits && editDistance(term, word, maxEdits + 1) <= maxEdits) {
        candidates.push({ term, weight: TUNING.relaxed.fuzzy, df });
      }
    }
    candidates.sort((a, b) => b.weight - a.weight || b.df - a.df || (a.term < b.term ? -1 : 1));
    for (const c of candidates.slice(0, TUNING.relaxed.maxExpansions)) out.set(c.term, c.weight);
    return out;
  }

  /** A namespace's words replace what it had (a backend renaming its tools every few seconds leaves no trail of old words). */
  private setSurface(namespace: string, surface: Map<string, string>): void {
    if (surface.size) this.surfaces.set(namespace, surface);
    else this.surfaces.delete(namespace);
  }

  /** How a stem is written: as the first namespace holding it first wrote it. */
  private surfaceOf(stem: string): string | undefined {
    for (const surface of this.surfaces.values()) {
      const word = surface.get(stem);
      if (word !== undefined) return word;
    }
    return undefined;
  }
}
