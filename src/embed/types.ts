/**
 * The embedder interface: text in, unit-length vectors out. Two real
 * implementations: static word vectors (offline, `static.ts`) and a
 * sentence-embedding model run by transformers.js (`transformers.ts`).
 */

/** Queries and tool texts may be embedded differently (instruction prefixes, which words count). */
export type EmbedRole = "query" | "document";

export interface Embedder {
  /** Names the model and its settings: cached vectors are keyed by it, so a different model never reuses them. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * How far its ranking is trusted against BM25's (weight 1) when no word
   * matches, unless the config says otherwise: measured per embedder on the
   * public retrieval sets (docs/retrieval.md). Default 1.25.
   */
  readonly fusionWeight?: number;
  /** One unit-length vector per text, in order. */
  embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]>;
  close?(): Promise<void>;
}

/** Scales `v` to unit length in place (a zero vector stays zero) and returns it. */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

/**
 * A failure an embedding service explained in its own words. The message is
 * metatools' (`HTTP 400`); what the service said is kept apart, for the log
 * only: it never reaches an agent's reply, where it would read as
 * metatools' warning (it may well be an instruction to the agent).
 */
export class ServiceAnswered extends Error {
  constructor(
    message: string,
    /** The first words of its answer, at most SAID_CHARS characters. */
    readonly said: string,
  ) {
    super(message);
  }
}

/** How much of a service's own explanation is kept for the log. */
export const SAID_CHARS = 160;

/** What the service said behind `error` (however wrapped), if it said anything. */
export function serviceSaid(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof ServiceAnswered && e.said) return e.said;
  return undefined;
}
