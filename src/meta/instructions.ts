import type { MetaServices } from "./services.js";
import type { ToolRecord } from "../model/tool.js";
import { isAscii, isAsciiAlnum } from "../text/analyze.js";

const MAX_NAMESPACES = 30;
/** What a session was told of the namespaces (notices.ts): by its instructions, then by search once when they changed. */
export const NAMESPACES_TOPIC = "namespaces";
/** The namespace line's budget, in characters (about 350 tokens): namespaces past it are counted, not named. */
const NAMESPACE_CHARS = 1400;
/** Words per namespace: what its tools' names say most often. */
const WORDS_PER_NAMESPACE = 4;
/** Words of tool names that say nothing of what a server is for. */
const EMPTY_WORDS = new Set(["get", "set", "the", "and", "for", "with", "from", "all", "new", "tool", "tools", "info", "data", "by", "to", "of"]);

const CODE_LOOP = "Code: code:tree, code:symbols, code:references, code:grep, code:read_file.";
/** The tool that runs a program of many calls (src/builtin/run-program.ts), named only to a caller whose profile has it. */
const PROGRAMS = "metatools:run_program";
const PROGRAM_WORDS = " (many calls in one turn: metatools:run_program)";

/** Server instructions: the explore → identify → focus loop, and what is connected now. */
export function instructions(services: MetaServices): string {
  const pending = services.backends.states().filter((s) => s.status !== "ready" && !s.fromSnapshot);
  const lines = [
    `Many MCP servers' tools, by id namespace:tool: search_tools, describe_tool, run_tool${services.registry.get(PROGRAMS) ? PROGRAM_WORDS : ""}.`,
    "Follow a reply's next for more (it reads a large result's handle @out_…); obey must_follow.",
    ...(servesNamespace(services, "code") ? [CODE_LOOP] : []),
    `Namespaces (tools): ${namespacesLine(services)}.`,
  ];
  if (pending.length) lines.push(`Not ready yet: ${pending.map((s) => `${s.namespace} (${s.status})`).join(", ")}.`);
  return lines.join("\n");
}

/**
 * The servers behind, each with its tool count and a few words of what
 * its tools do, within NAMESPACE_CHARS ("none yet" before any is known):
 * what the instructions name, and what search tells a session once when it
 * changed since (a backend that came up after the handshake).
 */
export function namespacesLine(services: MetaServices): string {
  // metatools' own namespace is plumbing the lines above name (handles, programs): the list is of the servers behind.
  const namespaces = services.registry.namespaces().filter((n) => n.namespace !== "metatools");
  const listed: string[] = [];
  let chars = 0;
  for (const n of namespaces.slice(0, MAX_NAMESPACES)) {
    const words = wordsOf(n.namespace, services.registry.namespaceRecords(n.namespace));
    const entry = `${n.namespace} (${n.count})${words.length ? `: ${words.join(", ")}` : ""}`;
    if (chars + entry.length > NAMESPACE_CHARS) break;
    listed.push(entry);
    chars += entry.length + 2;
  }
  if (namespaces.length > listed.length) listed.push(`…${namespaces.length - listed.length} more (search_tools finds their tools)`);
  return listed.join("; ") || "none yet";
}

/**
 * namespaceWords, once per tool list: search asks at every call (has the
 * line changed?), and at 100,000 tools counting the words of every name
 * took longer than the search. The registry replaces a namespace's list
 * when it changes, so the list itself is the key.
 */
const wordsCache = new WeakMap<readonly ToolRecord[], string[]>();
function wordsOf(namespace: string, records: readonly ToolRecord[]): string[] {
  let words = wordsCache.get(records);
  if (!words) {
    words = namespaceWords(
      namespace,
      records.map((r) => r.name),
    );
    wordsCache.set(records, words);
  }
  return words;
}

function servesNamespace(services: MetaServices, namespace: string): boolean {
  return services.registry.namespaces().some((n) => n.namespace === namespace);
}

/**
 * A few words for what a namespace's tools do: the words their names use
 * most (read_file, write_file, list_directory → "file, directory, …"),
 * plurals folded, empty words and the namespace's own name left out. Names
 * only: a tool's description is the backend's text, and is not repeated to
 * every client here.
 */
export function namespaceWords(namespace: string, names: readonly string[]): string[] {
  const counts = new Map<string, number>();
  const own = new Set(namespace.toLowerCase().split(/[^a-z0-9]+/));
  // Each name counts a word once; a name has a few words, so a list beats a set made per name (10,000 names at a start from the snapshot).
  const counted: string[] = [];
  for (const name of names) {
    counted.length = 0;
    for (const raw of splitName(name)) {
      if (raw.length <= 2) continue;
      const word = singular(raw);
      // singular() shortens only words of five letters or more: what passed the length check still does.
      if (isDigits(word) || EMPTY_WORDS.has(word) || own.has(word) || counted.includes(word)) continue;
      counted.push(word);
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
  }
  return (
    [...counts]
      // Words of [a-z0-9] only: code-unit order is the locale's, without a collator call per comparison (thousands of words at 10,000 tools).
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
      .slice(0, WORDS_PER_NAMESPACE)
      .map(([word]) => word)
  );
}

/** A name's words, lowercase: split at what is not [a-z0-9] and before a capital that follows a small letter or digit. */
export function splitName(name: string): string[] {
  if (!isAscii(name)) return splitNameByPattern(name);
  // By hand for ASCII names (nearly all; 10,000 of them at a start from the snapshot), as the patterns would.
  const words: string[] = [];
  let start = -1;
  for (let i = 0; i <= name.length; i++) {
    const c = i < name.length ? name.charCodeAt(i) : 0;
    const upper = c >= 65 && c <= 90;
    const alnum = isAsciiAlnum(c);
    const prev = i > 0 ? name.charCodeAt(i - 1) : 0;
    const afterSmall = (prev >= 97 && prev <= 122) || (prev >= 48 && prev <= 57);
    if (start >= 0 && (!alnum || (upper && afterSmall))) {
      words.push(name.slice(start, i).toLowerCase());
      start = -1;
    }
    if (alnum && start < 0) start = i;
  }
  return words;
}

/** splitName by the patterns: the reference, and the way for a name outside ASCII. */
export function splitNameByPattern(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/);
}

function isDigits(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** "files" → "file", "directories" → "directory"; "address" and "status" stay. */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}
