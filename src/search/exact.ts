/**
 * An exact name always wins. The commonest complaint about tool search is
 * a tool named exactly and not found first: `read_text_file`, "read text
 * file", `readTextFile`, `files:read_text_file`, `files__read_text_file` or
 * `mcp__files__read_text_file` all name one tool. Names and queries are cut
 * into the same words (case, `_`, `-`, `.`, `/`, `:` and camelCase humps
 * ignored); a query that spells a tool's name, or its namespace and name,
 * or holds one written as an identifier, names that tool (`match`), and
 * the exact signal (signals/exact.ts) puts it first. A name many tools
 * share (`get_info`) wins only as the whole query.
 */
import { namespaceOf, type ToolRecord } from "../model/tool.js";
import { TUNING } from "./tuning.js";
import type { Slices } from "../util/turn.js";

/** The words of a name or query, lower-cased: `mcp__files__readTextFile` → mcp, files, read, text, file. */
export function nameWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/(\p{L})(?=\p{N})/gu, "$1 ")
    .replace(/(\p{N})(?=\p{L})/gu, "$1 ")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * A name's keys: its words, and the same with adjacent numbers or adjacent
 * single letters joined, since a run of them loses its separators in
 * camelCase ("best over 1 5" is `bestOver15`, "calculate a b" is
 * `calculateAB`).
 */
function keysOf(words: readonly string[]): string[] {
  const plain = words.join(" ");
  // Most names have neither: one key, no extra work at index time.
  if (!words.some((w) => w.length === 1 || /^\p{N}/u.test(w))) return [plain];
  const join = (test: (w: string) => boolean, from: readonly string[]) => {
    const out: string[] = [];
    let run = false;
    for (const word of from) {
      if (run && test(word)) out[out.length - 1] += word;
      else out.push(word);
      run = test(word);
    }
    return out;
  };
  const digits = (w: string) => /^\p{N}+$/u.test(w);
  const letter = (w: string) => /^\p{L}$/u.test(w);
  return [...new Set([words, join(digits, words), join(letter, words), join(letter, join(digits, words))].map((w) => w.join(" ")))];
}

export class ExactNames {
  /** Key → the tool it names, or the tools (most keys name one: a string, not a collection, per key). */
  private readonly byKey = new Map<string, string | string[]>();
  /** Each namespace's keys, so a namespace is replaced without a pass over the others. */
  private readonly keysOf = new Map<string, string[]>();

  /** Replaces a namespace's tools (an empty list removes them); returns each tool's keys, for the index cache. */
  replaceNamespace(namespace: string, records: readonly ToolRecord[]): [string, string[]][] {
    const spaceWords = nameWords(namespace);
    const own = records.map((record) => toolKeys(spaceWords, record));
    this.installNamespace(namespace, own);
    return own;
  }

  /** Each tool's keys, as `replaceNamespace` makes them, made in slices (../util/turn.ts) and not installed. */
  async prepareInSlices(namespace: string, records: readonly ToolRecord[], slices: Slices): Promise<[string, string[]][]> {
    const spaceWords = nameWords(namespace);
    const own: [string, string[]][] = [];
    for (const record of records) {
      own.push(toolKeys(spaceWords, record));
      if (slices.due()) await slices.pause();
    }
    return own;
  }

  /** Replaces a namespace's tools with their keys as computed before. */
  installNamespace(namespace: string, own: readonly [string, string[]][]): void {
    for (const key of this.keysOf.get(namespace) ?? []) {
      const ids = this.byKey.get(key);
      const kept = (typeof ids === "string" ? [ids] : (ids ?? [])).filter((id) => namespaceOf(id) !== namespace);
      if (kept.length) this.byKey.set(key, kept.length === 1 ? kept[0]! : kept);
      else this.byKey.delete(key);
    }
    const keys = new Set<string>();
    for (const [id, ofTool] of own) {
      for (const key of ofTool) {
        keys.add(key);
        const ids = this.byKey.get(key);
        if (ids === undefined) this.byKey.set(key, id);
        else if (typeof ids === "string") {
          if (ids !== id) this.byKey.set(key, [ids, id]);
        } else ids.push(id);
      }
    }
    if (keys.size) this.keysOf.set(namespace, [...keys]);
    else this.keysOf.delete(namespace);
  }

  /** The tools a key names. */
  private named(key: string): readonly string[] | undefined {
    const ids = this.byKey.get(key);
    return typeof ids === "string" ? [ids] : ids;
  }

  /**
   * The tools a query names, best first, or none. The whole query may spell
   * a name in any way ("read text file"); inside a longer query only a name
   * written as an identifier counts (`read_text_file`, `readTextFile`,
   * `files:read_text_file`): in a sentence, "search jobs" is what the agent
   * wants done, not a tool it names. Within an identifier the longest run of
   * words that spells a name wins (namespace and name beat the name alone),
   * so `mcp__files__read_text_file` finds files:read_text_file. Ties keep
   * the order `rank` gives.
   */
  match(query: string, rank: (id: string) => number = () => 0): string[] {
    const whole = this.named(nameWords(query).join(" "));
    if (whole) return [...whole].sort((a, b) => rank(a) - rank(b));
    let best: string[] = [];
    let bestLength = 0;
    for (const token of query.split(/\s+/)) {
      if (!IDENTIFIER.test(token)) continue;
      const words = nameWords(token);
      for (let length = Math.min(words.length, TUNING.exact.maxWords + 2); length > bestLength; length--) {
        for (let start = 0; start + length <= words.length; start++) {
          const ids = this.named(words.slice(start, start + length).join(" "));
          if (!ids || ids.length > TUNING.exact.maxShared || (length === 1 && words.length > 1)) continue;
          if (length > bestLength) best = [];
          bestLength = length;
          for (const id of ids) if (!best.includes(id)) best.push(id);
        }
      }
    }
    return best.sort((a, b) => rank(a) - rank(b));
  }
}

/** A word written as an identifier: joined by `_`, `-`, `.`, `/` or `:`, or with camelCase humps. */
const IDENTIFIER = /\p{L}[\p{L}\p{N}]*(?:[_.:/-]+[\p{L}\p{N}]+|[a-z][A-Z])/u;

/** A tool's keys: its name's and title's words, alone and after its namespace's. */
function toolKeys(spaceWords: readonly string[], record: ToolRecord): [string, string[]] {
  const keys = new Set<string>();
  for (const name of [record.name, record.title]) {
    const words = name ? nameWords(name) : [];
    if (!words.length || words.length > TUNING.exact.maxWords) continue;
    for (const key of keysOf(words)) keys.add(key);
    for (const key of keysOf([...spaceWords, ...words])) keys.add(key);
  }
  return [record.id, [...keys]];
}
