/**
 * What a search says of how it ranked: the mode it gets (auto is hybrid
 * with a working embedder, else BM25, and a mode asked for that cannot run
 * says why), and the namespaces still being indexed, whose tools are
 * ranked without their meaning, or as they were, until done.
 */
import type { SearchMode } from "../config/resolved.js";
import type { SemanticIndex } from "./semantic.js";
import type { RankingMode } from "./signals/index.js";

/** The mode a request gets: auto is hybrid when an embedder is configured and working, else BM25; `seen`: the namespaces the caller may see. */
export function chooseMode(
  semantic: SemanticIndex | undefined,
  requested: SearchMode,
  seen: (namespace: string) => boolean,
): { mode: RankingMode; note?: string } {
  const wantsVectors = requested === "semantic" || requested === "hybrid";
  if (!semantic) {
    return wantsVectors
      ? {
          mode: "bm25",
          note: `mode "${requested}" needs an embedder, and metatools.search.embedder is false in this config; ranked with bm25. Remove that line to use the built-in one (docs/retrieval.md)`,
        }
      : { mode: "bm25" };
  }
  // An embedding service that is not there: its fallback (the built-in table) ranks meaning meanwhile, and says so.
  if (semantic.error && !semantic.fallback?.embedder) return { mode: "bm25", note: `semantic search is unavailable (${semantic.error}); ranked with bm25` };
  const mode = requested === "auto" ? "hybrid" : requested;
  // Only namespaces the caller may see are named (src/meta/scoped.ts).
  const failed = semantic.failures.filter(([namespace]) => seen(namespace));
  const indexing = semantic.indexing.filter((namespace) => seen(namespace) && !failed.some(([n]) => n === namespace));
  const notes = [
    ...(indexing.length ? [`still embedding ${indexing.join(", ")}: their tools are ranked by bm25 alone until done`] : []),
    ...failed.map(([namespace, why]) => `embedding ${namespace} failed (${why}): its tools are ranked by bm25 alone until it is tried again`),
  ];
  return { mode, note: notes.length && mode !== "bm25" ? notes.join("; ") : undefined };
}

/** What a search made while very large namespaces are indexed in the background (lexical.ts) says; undefined when none is. */
export function buildingNote(building: readonly string[]): string | undefined {
  if (!building.length) return undefined;
  return `still indexing ${building.join(", ")} (${building.length === 1 ? "its tools are" : "their tools are"} searched as last indexed until done)`;
}
