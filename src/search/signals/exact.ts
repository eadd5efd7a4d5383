/**
 * A tool the query names (../exact.ts): `read_text_file`, "read text
 * file", `files__read_text_file`. Pinned: it leads whatever the other lists
 * weigh, several named alike in the order they rank them.
 */
import type { ExactNames } from "../exact.js";
import { passes } from "../filters.js";
import type { RankingSignal, SignalList, SignalRequest } from "./signal.js";

export class ExactSignal implements RankingSignal {
  constructor(private readonly names: ExactNames) {}

  produce({ query, options }: SignalRequest): SignalList | undefined {
    const named = this.names.match(query).filter((id) => passes(id, options));
    return named.length ? { hits: named.map((id) => ({ id, score: 0 })), weight: 0, pinned: true } : undefined;
  }
}
