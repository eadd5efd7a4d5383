/**
 * The worker thread that runs the Universal Sentence Encoder, so a batch of
 * tool texts (hundreds of milliseconds of WebAssembly) never stalls the
 * server's event loop. Plain JavaScript run with `eval`: it works the same
 * from the build and from the TypeScript sources under test. It loads the
 * packages by the absolute paths the parent resolved, answers "ready" or
 * "failed" once, then one `{ id, vectors }` (row-major Float32Array,
 * transferred) or `{ id, error }` per `{ id, texts }` request.
 */
export interface WorkerInput {
  core: string;
  embeddings: string;
  vocab: string;
  modelUrl: string;
}

export type WorkerReply =
  | { type: "ready"; dimensions: number }
  | { type: "failed"; message: string }
  | { type: "vectors"; id: number; vectors: Float32Array }
  | { type: "error"; id: number; message: string };

export const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
const message = (error) => String((error && error.message) || error);
async function main() {
  let encoder;
  let dimensions;
  try {
    const core = require(workerData.core);
    const { EmbeddingsModel } = require(workerData.embeddings);
    await core.ready();
    const vocabulary = JSON.parse(readFileSync(workerData.vocab, "utf8"));
    const model = await core.loadGraphModel(workerData.modelUrl);
    encoder = new EmbeddingsModel({ model, vocabulary });
    dimensions = (await encoder.embed(["probe"]))[0].length;
  } catch (error) {
    parentPort.postMessage({ type: "failed", message: message(error) });
    return;
  }
  parentPort.on("message", async ({ id, texts }) => {
    try {
      const rows = await encoder.embed(texts);
      const vectors = new Float32Array(rows.length * dimensions);
      rows.forEach((row, i) => vectors.set(row, i * dimensions));
      parentPort.postMessage({ type: "vectors", id, vectors }, [vectors.buffer]);
    } catch (error) {
      parentPort.postMessage({ type: "error", id, message: message(error) });
    }
  });
  parentPort.postMessage({ type: "ready", dimensions });
}
main();
`;
