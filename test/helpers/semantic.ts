/**
 * Fixtures for semantic search: a handful of concepts whose words share a
 * direction ("remove" lands near "delete"), as a word-vectors file or a
 * transformers.js model folder, and tools that use other words than the
 * queries do.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { MetatoolsSection } from "../../src/config/schema.js";
import { WordVectors } from "../../src/embed/vectors-file.js";
import { runCli } from "./cli.js";
import { writeModelFolder } from "./onnx-model.js";

/** Words in frequency order; synonyms share a direction, so "remove" lands near "delete". */
export const CONCEPTS: Record<string, string[]> = {
  delete: ["delete", "remove", "erase", "discard"],
  file: ["file", "document", "files"],
  weather: ["weather", "forecast", "rain"],
  send: ["send", "email", "mail", "message"],
  create: ["create", "make", "new"],
  list: ["list", "show", "enumerate"],
};

/** The concept words in frequency order and their 16-dimensional vectors. */
export function conceptVectors(): { words: string[]; vectors: number[][] } {
  const words: string[] = [];
  const vectors: number[][] = [];
  const axes = Object.keys(CONCEPTS);
  axes.forEach((concept, axis) => {
    CONCEPTS[concept]!.forEach((word, k) => {
      const v = Array.from({ length: 16 }, (_, d) => (d === axis ? 1 : d === 8 + ((axis + k) % 8) ? 0.15 : 0));
      words.push(word);
      vectors.push(v);
    });
  });
  return { words, vectors };
}

export function writeVectors(dir: string): string {
  const { words, vectors } = conceptVectors();
  const file = join(dir, "tiny.mtvec");
  WordVectors.write(file, "test vectors", words, vectors);
  return file;
}

/** The same concepts as a transformers.js model folder. */
export function writeModel(dir: string): string {
  const { words, vectors } = conceptVectors();
  const folder = join(dir, "concept-model");
  writeModelFolder(folder, words, vectors);
  return folder;
}

export function writeTools(dir: string): string {
  const tools = [
    { id: "delete_entry", name: "delete_entry", description: "Erase an entry from the document store for good." },
    { id: "weather_now", name: "weather_now", description: "Current forecast for a city." },
    { id: "send_mail", name: "send_mail", description: "Send an email message to a recipient." },
    { id: "create_note", name: "create_note", description: "Make a new note." },
    { id: "list_notes", name: "list_notes", description: "Show every note." },
  ];
  const file = join(dir, "tools.jsonl");
  writeFileSync(file, tools.map((t) => JSON.stringify(t)).join("\n"));
  return file;
}

type EmbedderSpec = NonNullable<NonNullable<MetatoolsSection["search"]>["embedder"]>;

/**
 * Runs `metatools search` with an embedder that cannot load: stderr says why
 * (`says`), the command still succeeds on BM25, and the reply's warning
 * names `path`.
 */
export async function expectBm25Fallback(dir: string, tools: string, embedder: EmbedderSpec, says: RegExp, path: string): Promise<void> {
  const configFile = join(dir, "metatools.json");
  writeFileSync(
    configFile,
    JSON.stringify({ mcpServers: { notes: { type: "catalog", tools } }, metatools: { code: { enabled: false }, search: { embedder, embeddingCache: false } } }),
  );
  const cli = await runCli(["search", "send email", "--config", configFile, "--json"]);
  expect(cli.stderr).toMatch(says);
  expect(cli.stderr).toContain("semantic search is off");
  expect(cli.code).toBe(0);
  const body = JSON.parse(cli.stdout);
  expect(body.mode).toBe("bm25");
  expect(body.hits[0].id).toBe("notes:send_mail");
  expect(body.warning).toContain(path);
}
