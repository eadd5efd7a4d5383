/**
 * The embedder every install has: a static table of word vectors trained
 * for tool retrieval, shipped inside the package (`models/builtin.mtvec`),
 * so hybrid search works offline with no model download, no runtime and no
 * native code. How the table is made, and why this model: docs/retrieval.md.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../util/package-root.js";
import { MetatoolsError } from "../util/errors.js";
import { StaticEmbedder } from "./static.js";

/** The table, from the package root: found the same from `dist/` and from the TypeScript sources. */
export const BUILTIN_MODEL_FILE = join(PACKAGE_ROOT, "models", "builtin.mtvec");

export function loadBuiltinEmbedder(file = BUILTIN_MODEL_FILE): StaticEmbedder {
  if (!existsSync(file))
    throw new MetatoolsError(
      "embedder_unavailable",
      `the built-in embedder's table ${file} is missing from this install; reinstall metatools, or set metatools.search.embedder to false for BM25 only`,
    );
  return StaticEmbedder.fromFile(file, "builtin");
}
