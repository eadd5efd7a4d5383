/**
 * Every ranking signal search has, and which a mode runs. The mode chooses
 * the signals, not a code path: the engine runs them and one function
 * fuses what they produce (../fusion.ts, `fuseSignals`). A new signal is a
 * file in this folder implementing `RankingSignal` (signal.ts), a line in
 * `createSignals` and its name in the modes that run it below; its
 * constants go in ../tuning.ts, which the index cache keys by.
 */
import type { ToolRegistry } from "../../registry/registry.js";
import type { Bm25Ranker } from "../bm25.js";
import type { ExactNames } from "../exact.js";
import type { FusionSettings } from "../fusion.js";
import type { SemanticIndex } from "../semantic.js";
import { Bm25Signal } from "./bm25.js";
import { BrowseSignal } from "./browse.js";
import { ExactSignal } from "./exact.js";
import { LearnedSignal, type LearnedSource } from "./learned.js";
import { SemanticSignal } from "./semantic.js";
import { priorOf } from "../documents.js";
import type { RankingSignal } from "./signal.js";

/**
 * What the signals read: the engine's own indexes, and what it is made
 * with (a source added here is an option of the engine at once, engine.ts
 * `EngineOptions`).
 */
export interface SignalSources {
  registry: ToolRegistry;
  bm25: Bm25Ranker;
  exact: ExactNames;
  /** Undefined: no embedder. */
  semantic?: SemanticIndex;
  /** Undefined: learning is off. */
  learned?: LearnedSource;
  fusion: FusionSettings;
}

export function createSignals(sources: SignalSources) {
  return {
    bm25: new Bm25Signal(sources.bm25, sources.fusion.k),
    semantic: new SemanticSignal(sources.semantic, sources.fusion.semanticWeight, (id) => {
      const record = sources.registry.get(id);
      return record ? priorOf(record) : 1;
    }),
    learned: new LearnedSignal(sources.learned, sources.registry),
    exact: new ExactSignal(sources.exact),
    browse: new BrowseSignal(sources.registry),
  } satisfies Record<string, RankingSignal>;
}

export type SignalName = keyof ReturnType<typeof createSignals>;

/** How a search was ranked: `browse` lists every tool for an empty query. */
export type RankingMode = "bm25" | "semantic" | "hybrid" | "browse";

/**
 * The signals each mode runs. The first leads (fuseSignals): its match set
 * is the ranking's, its order goes on past the fused pool, and its strength
 * is what the others defer to. The others run first, in this order (a
 * failure is known before the rest is ranked), and their lists follow the
 * leader's into fusion in it.
 */
export const MODE_SIGNALS: Readonly<Record<RankingMode, readonly [SignalName, ...SignalName[]]>> = {
  bm25: ["bm25", "learned", "exact"],
  semantic: ["semantic", "exact"],
  hybrid: ["bm25", "semantic", "learned", "exact"],
  browse: ["browse"],
};

export type { LearnedSource } from "./learned.js";
export type { RankingSignal, SignalList, SignalRequest } from "./signal.js";
