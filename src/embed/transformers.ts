/**
 * A sentence-embedding model (all-MiniLM-L6-v2, bge-small, e5, …) run by
 * transformers.js (`@huggingface/transformers`, an optional dependency:
 * installed only by those who configure it) from a local folder holding
 * config.json, tokenizer.json and onnx/model_quantized.onnx (q8, the
 * default) or onnx/model.onnx (fp32). Nothing is fetched from the hub unless
 * the config allows a download.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { EmbedderConfig } from "../config/resolved.js";
import { errorMessage, MetatoolsError } from "../util/errors.js";
import { normalize, type Embedder, type EmbedRole } from "./types.js";
import { importExternal } from "../util/import-external.js";

export type TransformersSpec = Extract<EmbedderConfig, { type: "transformers" }>;

const PACKAGE = "@huggingface/transformers";
/** The weights file transformers.js loads for each dtype. */
const WEIGHTS: Record<TransformersSpec["dtype"], string> = { q8: "onnx/model_quantized.onnx", fp32: "onnx/model.onnx" };

interface Tensor {
  dims: number[];
  data: ArrayLike<number>;
  dispose?(): void;
}
type Extractor = ((texts: string[], options: { pooling: "mean" | "cls"; normalize: boolean }) => Promise<Tensor>) & { dispose?(): Promise<void> };
interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(task: "feature-extraction", model: string, options: { dtype: string }): Promise<Extractor>;
}

export class TransformersEmbedder implements Embedder {
  private constructor(
    readonly id: string,
    readonly dimensions: number,
    private readonly extractor: Extractor,
    private readonly spec: TransformersSpec,
  ) {}

  /** Loads the model; every failure names the folder and what is wrong with it. */
  static async load(spec: TransformersSpec): Promise<TransformersEmbedder> {
    const local = existsSync(spec.model);
    if (!local && !spec.allowDownload)
      throw unavailable(`model folder ${spec.model} not found (a folder with config.json, tokenizer.json and ${WEIGHTS[spec.dtype]})`);
    if (local) {
      for (const file of ["config.json", "tokenizer.json", WEIGHTS[spec.dtype]]) {
        if (!existsSync(join(spec.model, file)))
          throw unavailable(`model folder ${spec.model} has no ${file}${file.startsWith("onnx/") ? ` (the weights for dtype "${spec.dtype}")` : ""}`);
      }
    }
    let transformers: TransformersModule;
    try {
      transformers = (await importExternal(PACKAGE)) as TransformersModule;
    } catch (error) {
      throw unavailable(`the transformers embedder needs the ${PACKAGE} package (${errorMessage(error)}); install it with \`npm install ${PACKAGE}\``);
    }
    transformers.env.allowLocalModels = true;
    transformers.env.allowRemoteModels = spec.allowDownload;
    let extractor: Extractor;
    try {
      extractor = await transformers.pipeline("feature-extraction", spec.model, { dtype: spec.dtype });
    } catch (error) {
      throw unavailable(`cannot load the model in ${spec.model}: ${errorMessage(error)}`);
    }
    const probe = await runModel(extractor, ["probe"], spec.pooling).catch((error: unknown) => {
      throw unavailable(`the model in ${spec.model} loads but does not run: ${errorMessage(error)}`);
    });
    const dimensions = probe[0]!.length;
    const id = `transformers:${basename(spec.model)}:${spec.dtype}:${spec.pooling}:${fingerprint(spec)}`;
    return new TransformersEmbedder(id, dimensions, extractor, spec);
  }

  async embed(texts: readonly string[], role: EmbedRole): Promise<Float32Array[]> {
    if (!texts.length) return [];
    const prefix = role === "query" ? this.spec.queryPrefix : this.spec.documentPrefix;
    return runModel(
      this.extractor,
      texts.map((t) => prefix + t),
      this.spec.pooling,
    );
  }

  async close(): Promise<void> {
    await this.extractor.dispose?.();
  }
}

async function runModel(extractor: Extractor, texts: string[], pooling: "mean" | "cls"): Promise<Float32Array[]> {
  const tensor = await extractor(texts, { pooling, normalize: true });
  try {
    const [rows, dims] = tensor.dims as [number, number];
    if (tensor.dims.length !== 2 || rows !== texts.length)
      throw new Error(`expected ${texts.length} pooled vectors, got a tensor of shape [${tensor.dims.join(", ")}]`);
    return Array.from({ length: rows }, (_, r) => {
      const v = Float32Array.from({ length: dims }, (_, d) => tensor.data[r * dims + d]!);
      // A text with no known token pools to zero, which the library's normalizing turns into NaN.
      return v.some(Number.isNaN) ? new Float32Array(dims) : normalize(v);
    });
  } finally {
    tensor.dispose?.();
  }
}

/**
 * Names the model's contents, so cached vectors are never reused for other
 * weights under the same folder name: the config and tokenizer whole, the
 * weights by size and their first and last megabyte.
 */
function fingerprint(spec: TransformersSpec): string {
  const hash = createHash("sha256").update(spec.queryPrefix).update("\0").update(spec.documentPrefix);
  if (!existsSync(spec.model)) return hash.update(spec.model).digest("hex").slice(0, 12);
  for (const file of ["config.json", "tokenizer.json"]) hash.update(readFileSync(join(spec.model, file)));
  const weights = join(spec.model, WEIGHTS[spec.dtype]);
  const size = statSync(weights).size;
  hash.update(String(size));
  const fd = openSync(weights, "r");
  try {
    const chunk = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, chunk, 0, chunk.length, 0);
    hash.update(chunk);
    readSync(fd, chunk, 0, chunk.length, Math.max(0, size - chunk.length));
    hash.update(chunk);
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex").slice(0, 12);
}

function unavailable(message: string): MetatoolsError {
  return new MetatoolsError("embedder_unavailable", message);
}
