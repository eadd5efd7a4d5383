/** The configured embedder, loaded: the built-in table, static word vectors, an embedding service, the Universal Sentence Encoder, or a transformers.js model. */
import type { EmbedderConfig } from "../config/resolved.js";
import { loadBuiltinEmbedder } from "./builtin.js";
import { StaticEmbedder } from "./static.js";
import type { Embedder } from "./types.js";

export async function openEmbedder(spec: EmbedderConfig): Promise<Embedder> {
  if (spec.type === "builtin") return loadBuiltinEmbedder();
  if (spec.type === "static") return StaticEmbedder.fromFile(spec.vectors);
  if (spec.type === "openai") {
    const { OpenAIEmbedder } = await import("./openai.js");
    return OpenAIEmbedder.load(spec);
  }
  if (spec.type === "use") {
    const { UseEmbedder } = await import("./use.js");
    return UseEmbedder.load(spec.model);
  }
  // Loaded on demand: the package is optional, and heavy.
  const { TransformersEmbedder } = await import("./transformers.js");
  return TransformersEmbedder.load(spec);
}
