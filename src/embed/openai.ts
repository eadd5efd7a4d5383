/**
 * An embedding service as the semantic leg: any server with an
 * OpenAI-compatible `POST {url}/embeddings` (Ollama, Hugging Face TEI, vLLM,
 * LM Studio, OpenAI and the services that copy its API).
 *
 * Texts go in batches, a few at a time, each request under a deadline and
 * retried on a network failure, a 429 or a 5xx (with backoff, `Retry-After`
 * honoured up to a bound). An answer is read up to a size bound derived
 * from the batch (never more than the vectors asked for can take), and
 * checked: one vector per text, each of the service's dimensions, every
 * value a finite number. A query is embedded within its own budget
 * (`queryTimeoutMs`, no retry): past it, that one search ranks without the
 * vectors and says why (search/engine.ts). The API key goes only into the
 * `Authorization` header; the embedder's id (which keys the cache) names the
 * service and the model, never the key.
 */
import { createHash } from "node:crypto";
import type { EmbedderConfig } from "../config/resolved.js";
import { boundBody, byteWords, TooLargeError } from "../util/bounded-body.js";
import { errorMessage, MetatoolsError } from "../util/errors.js";
import { normalize, SAID_CHARS, ServiceAnswered, type Embedder, type EmbedRole } from "./types.js";

export type OpenAISpec = Extract<EmbedderConfig, { type: "openai" }>;

/** The most a retried request waits before trying again, whatever the service's `Retry-After` says. */
const MAX_BACKOFF_MS = 10_000;
/** Attempts per batch of documents (a query gets one). */
const ATTEMPTS = 3;
/** Bytes an answer may take per number it carries (JSON digits, a sign, an exponent, a comma), plus room for the rest. */
const BYTES_PER_VALUE = 32;
const ANSWER_OVERHEAD = 64 << 10;

export class OpenAIEmbedder implements Embedder {
  private active = 0;
  private readonly queue: (() => void)[] = [];
  /** How long the last answered request took: doctor shows it. */
  lastLatencyMs: number | undefined;

  private constructor(
    readonly id: string,
    readonly dimensions: number,
    private readonly spec: OpenAISpec,
  ) {}

  /** Asks the service for one embedding: its answer says the dimensions; no answer is a clear error naming the service. */
  static async load(spec: OpenAISpec): Promise<OpenAIEmbedder> {
    const probe = new OpenAIEmbedder(idOf(spec, spec.dimensions ?? 0), spec.dimensions ?? 0, spec);
    const [vector] = await probe.request(["metatools"], spec.timeoutMs, 1).catch((error: unknown) => {
      throw elsewhere(unavailable(`the embedding service at ${where(spec)} did not answer: ${errorMessage(error)}`, error));
    });
    const dimensions = vector!.length;
    if (spec.dimensions !== undefined && dimensions !== spec.dimensions)
      throw unavailable(`the embedding service at ${where(spec)} answers ${dimensions} dimensions for ${spec.model}, and the config says ${spec.dimensions}`);
    const embedder = new OpenAIEmbedder(idOf(spec, dimensions), dimensions, spec);
    embedder.lastLatencyMs = probe.lastLatencyMs;
    return embedder;
  }

  async embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]> {
    const prefix = role === "query" ? this.spec.queryPrefix : this.spec.documentPrefix;
    const input = texts.map((t) => `${prefix}${t}`);
    // A query has its own budget and no retry: a search never waits long for the service.
    if (role === "query") return this.request(input, this.spec.queryTimeoutMs, 1);
    const batches: string[][] = [];
    for (let i = 0; i < input.length; i += this.spec.batchSize) batches.push(input.slice(i, i + this.spec.batchSize));
    try {
      const out = await Promise.all(batches.map((batch) => this.limited(() => this.request(batch, this.spec.timeoutMs, ATTEMPTS))));
      return out.flat();
    } catch (error) {
      // The service may answer later: the tools are embedded again then (search/semantic.ts).
      throw elsewhere(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** At most `concurrency` requests at once. */
  private async limited<T>(run: () => Promise<T>): Promise<T> {
    if (this.active >= this.spec.concurrency) await new Promise<void>((resolve) => this.queue.push(resolve));
    this.active++;
    try {
      return await run();
    } finally {
      this.active--;
      this.queue.shift()?.();
    }
  }

  private async request(input: string[], timeoutMs: number, attempts: number): Promise<Float32Array[]> {
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        const vectors = await this.post(input, timeoutMs);
        this.lastLatencyMs = Math.round(performance.now() - started);
        return vectors;
      } catch (error) {
        const retry = error instanceof Retryable && attempt < attempts;
        if (!retry) throw error instanceof Retryable ? error.cause : error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, error.afterMs ?? 500 * 2 ** (attempt - 1))).unref());
      }
    }
  }

  private async post(input: string[], timeoutMs: number): Promise<Float32Array[]> {
    const body = { model: this.spec.model, input, encoding_format: "float", ...(this.spec.dimensions ? { dimensions: this.spec.dimensions } : {}) };
    let response: Response;
    try {
      response = await fetch(`${this.spec.url}/embeddings`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(this.spec.apiKey ? { authorization: `Bearer ${this.spec.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "error",
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      throw new Retryable(new Error(timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${errorMessage(error)})`));
    }
    // Vectors of the configured size (or, before it is known, a generous one), for every text asked.
    const perVector = (this.dimensions || 4096) * BYTES_PER_VALUE;
    const limit = ANSWER_OVERHEAD + input.length * perVector;
    const bounded = boundBody(
      response,
      limit,
      () =>
        new TooLargeError("embedder_unavailable", `its answer passed ${byteWords(limit)}, far more than ${input.length} vectors take; not read further`, limit),
    );
    let text: string;
    try {
      text = await bounded.text();
    } catch (error) {
      throw error instanceof TooLargeError ? error : new Retryable(new Error(`its answer broke off (${errorMessage(error)})`));
    }
    if (!response.ok) {
      // The status in metatools' words; what the service wrote goes to the log only (search/semantic.ts), never to an agent.
      const why = `HTTP ${response.status}`;
      const said = firstWords(text);
      if (response.status === 429 || response.status >= 500) throw new Retryable(new ServiceAnswered(why, said), retryAfter(response));
      throw new ServiceAnswered(response.status === 401 || response.status === 403 ? `${why}: check the apiKey` : why, said);
    }
    return this.vectorsOf(text, input.length);
  }

  /** The answer's vectors, in the order of the texts, each checked and scaled to unit length. */
  private vectorsOf(text: string, count: number): Float32Array[] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error("its answer is not JSON");
    }
    const data = (parsed as { data?: unknown }).data;
    if (!Array.isArray(data) || data.length !== count) throw new Error(`its answer has ${Array.isArray(data) ? data.length : "no"} vectors for ${count} texts`);
    const out = new Array<Float32Array>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === "number" ? item.index : position;
      const values = item?.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= count || out[index]) throw new Error("its answer's vectors are not one per text");
      if (!Array.isArray(values) || values.length === 0 || (this.dimensions && values.length !== this.dimensions))
        throw new Error(`its answer has a vector of ${Array.isArray(values) ? values.length : "no"} values, not ${this.dimensions || "a list of numbers"}`);
      const vector = new Float32Array(values.length);
      for (let i = 0; i < values.length; i++) {
        const value = values[i];
        if (typeof value !== "number" || !Number.isFinite(value)) throw new Error("its answer has a value that is not a finite number");
        vector[i] = value;
      }
      out[index] = normalize(vector);
    });
    return out;
  }
}

/** A failure worth another try (the network, a timeout, 429, 5xx); `afterMs` from the service's Retry-After. */
class Retryable extends Error {
  constructor(
    override readonly cause: Error,
    readonly afterMs?: number,
  ) {
    super(cause.message);
  }
}

function retryAfter(response: Response): number | undefined {
  const value = Number(response.headers.get("retry-after"));
  return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
}

/** The first words of an error body (the service's own message, typically), bounded. */
function firstWords(text: string): string {
  return text
    .slice(0, SAID_CHARS * 4)
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, SAID_CHARS);
}

/** The service as named in messages and in the id: its URL without credentials, query or fragment. */
function where(spec: OpenAISpec): string {
  try {
    const url = new URL(spec.url);
    return `${url.protocol}//${url.host}${url.pathname}`.replace(/\/$/, "");
  } catch {
    return "(an invalid URL)";
  }
}

/** Names the service, model, dimensions and prefixes: cached vectors of another never mix in. */
function idOf(spec: OpenAISpec, dimensions: number): string {
  const prefixes = createHash("sha256").update(`${spec.queryPrefix}\0${spec.documentPrefix}`).digest("hex").slice(0, 8);
  return `openai:${where(spec)}#${spec.model}@${dimensions}~${prefixes}`;
}

/** Marks a failure of the service as one worth another try later. */
function elsewhere<E extends Error>(error: E): E & { retryable: true } {
  return Object.assign(error, { retryable: true as const });
}

function unavailable(message: string, cause?: unknown): MetatoolsError {
  return new MetatoolsError("embedder_unavailable", message, cause === undefined ? undefined : { cause });
}
