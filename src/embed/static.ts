/**
 * The offline embedder: static word vectors pooled with smooth inverse
 * frequency weights (Arora et al., 2017: a word counts a / (a + p(w)), so
 * "the" weighs little and "invoice" much). A word's frequency p(w) comes
 * from its rank in the vectors file (Zipf's law). Identifiers are split as
 * for BM25 (`getUserProfile` → get user profile); a query's stop words and
 * request filler are dropped. Pure arithmetic: no model download, no native
 * code, microseconds per text.
 */
import { basename } from "node:path";
import { fold, QUERY_FILLER, splitWords, STOP_WORDS } from "../text/analyze.js";
import { normalize, type Embedder, type EmbedRole } from "./types.js";
import { WordVectors } from "./vectors-file.js";

/** SIF's smoothing constant: the weight of a word of probability p is A / (A + p). */
const A = 1e-3;

export class StaticEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly fusionWeight: number | undefined;
  /** False for a trained table whose vectors carry each word's weight in their length. */
  private readonly weighted: boolean;
  /** The harmonic number of the vocabulary: p(rank r) = 1 / ((r + 1) · H). */
  private readonly harmonic: number;

  constructor(
    private readonly vectors: WordVectors,
    name: string,
  ) {
    this.dimensions = vectors.dimensions;
    this.harmonic = Math.log(vectors.header.count) + 0.5772;
    this.weighted = vectors.header.weighting !== "none";
    this.fusionWeight = vectors.header.fusionWeight;
    const digest = vectors.digest.slice(0, 12);
    this.id = `static:${name}:${digest}`;
  }

  static fromFile(file: string, name = basename(file).replace(/\.[^.]+$/, "")): StaticEmbedder {
    return new StaticEmbedder(WordVectors.read(file), name);
  }

  async embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text, role));
  }

  embedOne(text: string, role: EmbedRole): Float32Array {
    const out = new Float32Array(this.dimensions);
    for (const raw of splitWords(text)) {
      const word = fold(raw.toLowerCase());
      if (role === "query" && (STOP_WORDS.has(word) || QUERY_FILLER.has(word))) continue;
      const rank = this.vectors.rank(word);
      if (rank === undefined) continue;
      if (!this.weighted) {
        this.vectors.addTo(out, rank, 1);
        continue;
      }
      const p = 1 / ((rank + 1) * this.harmonic);
      this.vectors.addTo(out, rank, A / (A + p));
    }
    return normalize(out);
  }
}
