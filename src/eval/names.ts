/**
 * The exact-name check: every tool of a dataset, searched for by its name
 * in each common spelling, must come first. Name spellings (`read_text_file`,
 * "read text file", `readTextFile`, `ReadTextFile`) are answered by a tool
 * of that name (several tools may share one); id spellings
 * (`files:read_text_file`, `files__read_text_file`,
 * `mcp__files__read_text_file`) by that very tool.
 */
import type { Metatools } from "../app.js";
import type { SearchMode } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import { nameWords } from "../search/exact.js";

export const SPELLINGS = ["as written", "words", "snake_case", "camelCase", "PascalCase", "namespace:name", "namespace__name", "mcp__namespace__name"] as const;
export type Spelling = (typeof SPELLINGS)[number];

export interface NamesResult {
  tools: number;
  queries: number;
  /** Share of queries whose first hit is right. */
  first: number;
  bySpelling: Record<Spelling, number>;
  /** The first few that missed, to look at. */
  misses: { query: string; expected: string; got: string | undefined }[];
}

/** The spellings of one tool's name: what an agent might type for it. */
export function spellingsOf(record: ToolRecord): Record<Spelling, string> {
  const name = record.title ?? record.name;
  const words = nameWords(name);
  const idWords = nameWords(record.name);
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  const snake = idWords.join("_");
  return {
    "as written": name,
    words: words.join(" "),
    snake_case: words.join("_"),
    camelCase: words.map((w, i) => (i ? cap(w) : w)).join(""),
    PascalCase: words.map(cap).join(""),
    "namespace:name": record.id,
    namespace__name: `${record.namespace}__${snake}`,
    mcp__namespace__name: `mcp__${record.namespace}__${snake}`,
  };
}

export async function checkNames(app: Metatools, namespace: string, mode: SearchMode): Promise<NamesResult> {
  const records = app.registry.namespaceRecords(namespace);
  const right = Object.fromEntries(SPELLINGS.map((s) => [s, 0])) as Record<Spelling, number>;
  const misses: NamesResult["misses"] = [];
  let first = 0;
  for (const record of records) {
    const wanted = nameWords(record.title ?? record.name).join(" ");
    for (const [spelling, query] of Object.entries(spellingsOf(record)) as [Spelling, string][]) {
      const outcome = await app.search.search({ query, limit: 1, offset: 0, namespaces: [namespace], tags: [], mode });
      const top = outcome.hits[0]?.record;
      const byId = spelling.includes("namespace");
      const ok = top !== undefined && (byId ? top.id === record.id : nameWords(top.title ?? top.name).join(" ") === wanted);
      if (ok) {
        first++;
        right[spelling]++;
      } else if (misses.length < 10) misses.push({ query, expected: record.id, got: top?.id });
    }
  }
  const per = records.length || 1;
  const bySpelling = Object.fromEntries(SPELLINGS.map((s) => [s, right[s] / per])) as Record<Spelling, number>;
  return { tools: records.length, queries: records.length * SPELLINGS.length, first: first / (records.length * SPELLINGS.length || 1), bySpelling, misses };
}
