/**
 * Embeds one namespace's tools into the vector index: through the cache
 * (only texts never seen are embedded, tools with the same text share one
 * embedding), in batches with a turn of the event loop between them (an
 * embedder that computes in this thread would otherwise hold every search
 * and call), stopping as soon as a newer listing of the namespace
 * supersedes this one.
 */
import { textHash, type EmbeddingCache } from "../embed/cache.js";
import type { StoredVector } from "../embed/stored.js";
import type { Embedder } from "../embed/types.js";
import type { ToolRecord } from "../model/tool.js";
import { nextTurn } from "../util/turn.js";
import { embeddingText } from "./documents.js";
import type { VectorIndex } from "./vectors.js";

/** Texts per embed call: large enough to batch, small enough to report progress. */
const BATCH = 64;
/** Tools whose texts are hashed (looked up in the cache) between turns of the event loop. */
const SLICE = 1000;

export interface EmbedRun {
  /** False once a newer listing of the namespace supersedes this run: it stops, installing nothing. */
  current(): boolean;
  /** How far it is: tools with a vector (cached or made), of all. */
  progress(done: number, total: number): void;
  /** Texts the embedder was asked for (cache misses). */
  embedded(count: number): void;
}

export async function embedNamespace(
  loaded: { embedder: Embedder; vectors: VectorIndex; cache: EmbeddingCache },
  namespace: string,
  records: readonly ToolRecord[],
  run: EmbedRun,
): Promise<void> {
  const { embedder, vectors, cache } = loaded;
  const texts: string[] = [];
  const hashes: string[] = [];
  for (let i = 0; i < records.length; i++) {
    if (i % SLICE === SLICE - 1) await nextTurn();
    texts.push(embeddingText(records[i]!));
    hashes.push(textHash(texts[i]!));
  }
  // The vectors are kept here as they are found or made: the cache may drop one again (its cap) before the namespace is indexed.
  const known = new Map<string, StoredVector>();
  const firstOf = new Map<string, number>();
  hashes.forEach((hash, i) => {
    if (known.has(hash) || firstOf.has(hash)) return;
    const vector = cache.get(hash);
    if (vector) known.set(hash, vector);
    else firstOf.set(hash, i);
  });
  const missing = [...firstOf.values()];
  let done = records.length - missing.length;
  run.progress(done, records.length);
  for (let start = 0; start < missing.length; start += BATCH) {
    if (start) await nextTurn();
    if (!run.current()) return;
    const batch = missing.slice(start, start + BATCH);
    const embedded = await embedder.embed(
      batch.map((i) => texts[i]!),
      "document",
    );
    const entries = batch.map((i, k) => ({ hash: hashes[i]!, vector: embedded[k]! }));
    cache.add(entries).forEach((vector, k) => known.set(entries[k]!.hash, vector));
    run.embedded(batch.length);
    done += batch.length;
    run.progress(done, records.length);
  }
  if (!run.current()) return;
  vectors.replaceNamespace(
    namespace,
    records.map((r) => r.id),
    hashes.map((h) => known.get(h)!),
  );
  // A large index is packed for the scan in slices, not by the first search after the change (a third of a second at 100,000).
  if (vectors.repacksInSlices) await vectors.repackInSlices();
}
