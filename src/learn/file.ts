/**
 * Learned files (`metatools learn --export`): read with every field checked,
 * so an import never takes a file it does not understand, and imported as a
 * seed at start, once per file content.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as z from "zod";
import { errorMessage, MetatoolsError } from "../util/errors.js";
import type { LearnedFile, LearnedStore } from "./store.js";

const evidence = z.tuple([z.number().finite(), z.number().finite().nonnegative()]);

const learnedFileSchema = z.object({
  format: z.literal("metatools-learned"),
  version: z.literal(1),
  exportedAt: z.string(),
  terms: z.record(z.string().min(1).max(200), z.record(z.string().min(3).max(300), evidence)),
  queries: z.record(z.string(), z.array(z.string())).optional(),
});

/** The file's learned associations; a clear error naming the file and the field otherwise. */
export function readLearnedFile(file: string): LearnedFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new MetatoolsError("learned_file_invalid", `${file}: not a readable JSON file (${errorMessage(error)})`);
  }
  const parsed = learnedFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new MetatoolsError(
      "learned_file_invalid",
      `${file}: ${issue.path.join(".") || "the file"}: ${issue.message} (expected a file made by metatools learn --export)`,
    );
  }
  return parsed.data as LearnedFile;
}

/** Imports the seed file unless this content was already imported into the store's current generation. */
export async function importSeed(store: LearnedStore, file: string, now: number): Promise<number | undefined> {
  const learned = readLearnedFile(file);
  const content = createHash("sha256").update(JSON.stringify(learned.terms)).digest("hex").slice(0, 16);
  if (!(await store.mark(`seed:${content}`))) return undefined;
  return store.import(learned, now);
}
