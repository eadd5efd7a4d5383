/**
 * An embedder's own costs, for `metatools bench`: a query's embedding
 * latency (what hybrid search adds to each search before the vector and
 * BM25 work) and tool texts embedded per second (how long a cold index
 * takes). Synthetic tool texts and queries, as for the other rows. Run for
 * the embedder the hybrid rows use, and for the Universal Sentence Encoder
 * when its packages are installed.
 */
import { openEmbedder } from "../embed/open.js";
import type { EmbedderConfig } from "../config/resolved.js";
import { embeddingText } from "../search/documents.js";
import { percentile } from "./measure.js";
import { syntheticQueries, syntheticTools } from "./synthetic.js";

export interface EncoderBench {
  queryP50Ms: number;
  queryP99Ms: number;
  toolsPerSecond: number;
}

export async function encoderBench(spec: EmbedderConfig, tools = 256, queries = 100): Promise<EncoderBench> {
  const embedder = await openEmbedder(spec);
  try {
    const texts = syntheticTools(tools).map((t) =>
      embeddingText({ name: t.name, group: t.server, summary: t.description, description: t.description, tags: [], aliases: [] }),
    );
    const start = performance.now();
    await embedder.embed(texts, "document");
    const toolsPerSecond = (texts.length * 1000) / (performance.now() - start);
    // A few queries first, so the times are of a warmed-up process.
    for (const query of syntheticQueries(Math.min(queries, 20), 3)) await embedder.embed([query], "query");
    const times: number[] = [];
    for (const query of syntheticQueries(queries)) {
      const t = performance.now();
      await embedder.embed([query], "query");
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    return { queryP50Ms: percentile(times, 50), queryP99Ms: percentile(times, 99), toolsPerSecond };
  } finally {
    await embedder.close?.();
  }
}
