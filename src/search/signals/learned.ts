/**
 * What was learned from use (src/learn/): the tools past searches like
 * this one led to, for this caller. Its weight grows with its best tool's
 * agreement with the query and, like meaning's, defers to the words
 * (`TUNING.learned`). No history, or too little agreement: no list, and
 * the ranking is exactly what it is without learning.
 */
import type { ToolRegistry } from "../../registry/registry.js";
import { passes } from "../filters.js";
import { TUNING } from "../tuning.js";
import type { Ranked } from "../types.js";
import type { RankingSignal, SignalList, SignalRequest } from "./signal.js";

/** What search learned from use (src/learn/learner.ts). */
export interface LearnedSource {
  /** Tools with their agreement with the query (0–1: how much of it led to them before), for `principal`'s search, best first. */
  rank(query: string, allowed: (id: string) => boolean, principal?: string): Promise<{ hits: Ranked[] }>;
}

export class LearnedSignal implements RankingSignal {
  constructor(
    /** Undefined: learning is off. */
    private readonly source: LearnedSource | undefined,
    private readonly registry: ToolRegistry,
  ) {}

  /**
   * The learned list, weighted `trust × a² / (a² + halfAgreement²)` by its
   * best tool's agreement a; undefined below the floor. Only tools in the
   * registry (never a quarantined or removed one) and within the request's
   * filters. What it holds depends on who asks: see src/learn/shared.ts.
   */
  async produce({ query, options, principal }: SignalRequest): Promise<SignalList | undefined> {
    if (!this.source) return undefined;
    const { hits } = await this.source.rank(query, (id) => this.registry.get(id) !== undefined && passes(id, options), principal);
    const { trust, halfAgreement, floor, depth } = TUNING.learned;
    const top = hits[0]?.score ?? 0;
    if (top < floor) return undefined;
    return { hits: hits.slice(0, depth), weight: (trust * top ** 2) / (top ** 2 + halfAgreement ** 2), defers: true };
  }
}
