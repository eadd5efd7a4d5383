/**
 * Guidance for a person: the calls a reply suggests (`next`, and those
 * `formatCall` writes into its hint text) as the `metatools` command lines
 * that make them, quoted for a POSIX shell, so they can be pasted. `--json`
 * output keeps the agent's form; only text for a terminal is rewritten.
 */
import { realpathSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { NextCall } from "../disclosure/guidance.js";
import type { command as describeCommand } from "./commands/describe.js";
import type { command as runCommand } from "./commands/run.js";
import type { command as searchCommand } from "./commands/search.js";

/** A word as a POSIX shell reads it back: bare when it holds nothing the shell acts on, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

type Args = Record<string, unknown>;
/** A command's words: its name, its positional arguments (tool ids, the query) and its flags. */
type Words = { command: "search" | "describe" | "run"; positionals: string[]; flags: string[] };

/** `--name value` with a flag the command declares (in its file under commands/): a flag renamed there fails the typecheck here. */
const flagOf =
  <F>() =>
  (name: keyof F & string, value: unknown): string[] =>
    value === undefined ? [] : [`--${name}`, String(value)];
const searchFlag = flagOf<(typeof searchCommand)["flags"]>();
const describeFlag = flagOf<(typeof describeCommand)["flags"]>();
const runFlag = flagOf<(typeof runCommand)["flags"]>();
const strings = (value: unknown): string[] | undefined =>
  typeof value === "string" ? [value] : Array.isArray(value) && value.every((v) => typeof v === "string") ? value : undefined;

/**
 * Each meta-tool's command: the arguments it takes (a call with any other
 * cannot be written as a command line) and its words, with the flags the
 * commands declare; a test reads each line back through their parsers.
 */
const WRITERS: Record<NextCall["tool"], { takes: readonly string[]; words(args: Args): Words | undefined }> = {
  search_tools: {
    takes: ["query", "limit", "offset", "namespace", "tags", "mode"],
    words: (a) => {
      const tags = a.tags === undefined ? [] : strings(a.tags);
      const namespaces = a.namespace === undefined ? [] : strings(a.namespace);
      if (typeof a.query !== "string" || !tags || !namespaces || tags.some((t) => t.includes(","))) return undefined;
      const flags = [
        ...searchFlag("limit", a.limit),
        ...searchFlag("offset", a.offset),
        ...namespaces.flatMap((ns) => searchFlag("namespace", ns)),
        ...searchFlag("tags", tags.length ? tags.join(",") : undefined),
        ...searchFlag("mode", a.mode),
      ];
      return { command: "search", positionals: [a.query], flags };
    },
  },
  describe_tool: {
    takes: ["tool_id", "tool_ids", "detail_level", "examples_max", "format"],
    words: (a) => {
      const ids = strings(a.tool_ids ?? a.tool_id);
      if (!ids?.length || (a.tool_id !== undefined && a.tool_ids !== undefined)) return undefined;
      return {
        command: "describe",
        positionals: ids,
        flags: [...describeFlag("detail", a.detail_level), ...describeFlag("examples", a.examples_max), ...describeFlag("format", a.format)],
      };
    },
  },
  run_tool: {
    takes: ["tool_id", "args", "cache", "timeout_ms"],
    words: (a) => {
      const args = a.args ?? {};
      if (typeof a.tool_id !== "string" || !args || typeof args !== "object" || Array.isArray(args)) return undefined;
      const flags = [
        ...runFlag("args", Object.keys(args).length ? JSON.stringify(args) : undefined),
        ...runFlag("cache", a.cache),
        ...runFlag("timeout", a.timeout_ms),
      ];
      return { command: "run", positionals: [a.tool_id], flags };
    },
  },
};

/** The flags this run was given that every command takes and a pasted line needs too (`--config F`, `--root DIR`), as `main` found them. */
let carried: string[] = [];

/** Called once by `main` with the command's words: the lines printed later repeat its --config and --root. */
export function carryFlags(words: readonly string[]): void {
  carried = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "--") break;
    const [flag, value] = word.includes("=") ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)] : [word, words[i + 1]];
    if ((flag === "--config" || flag === "--root") && value !== undefined) {
      carried.push(flag, value);
      if (!word.includes("=")) i++;
    }
  }
}

/**
 * The program as the user launched it: through npx (from a clone or a
 * project, which sets npm_command), `metatools` when that name on the PATH
 * is this very script, else `node` and the script's path (a clone's
 * dist/cli.mjs), so that a line printed can be pasted as it is.
 */
export function selfCommand(): string {
  if (process.env.npm_command === "exec") return "npx metatools";
  const script = process.argv[1];
  // Lines printed by a program that embeds metatools (or a test) name the command as it is installed.
  if (!script || basename(script) === "metatools" || !isOwnCli(script) || onPath(script)) return "metatools";
  const shown = relative(process.cwd(), script);
  return `node ${shellWord(shown.startsWith("..") || isAbsolute(shown) ? script : shown)}`;
}

/** selfCommand() with this run's --config and --root: the start of every command line printed for pasting. */
export function selfInvocation(): string {
  return [selfCommand(), ...carried.map(shellWord)].join(" ");
}

/** Whether `script` is this package's CLI: the bundle this code is in, or the compiled entry beside it. */
function isOwnCli(script: string): boolean {
  try {
    const real = realpathSync(script);
    const here = fileURLToPath(import.meta.url);
    return [here, join(dirname(here), "main.js"), join(dirname(here), "..", "cli.mjs")].includes(real);
  } catch {
    return false;
  }
}

function onPath(script: string): boolean {
  let real: string;
  try {
    real = realpathSync(script);
  } catch {
    return false;
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      if (realpathSync(join(dir, "metatools")) === real) return true;
    } catch {
      // Not there: the next folder.
    }
  }
  return false;
}

/** The `metatools …` command line that makes `call`; undefined when the command has no flag for one of its arguments. */
export function commandLine(call: NextCall): string | undefined {
  const writer = WRITERS[call.tool];
  if (!writer || Object.keys(call.arguments).some((key) => !writer.takes.includes(key))) return undefined;
  const words = writer.words(call.arguments);
  if (!words) return undefined;
  // A positional that starts with "-" would be read as a flag: after "--", it is not.
  const { command, positionals, flags } = words;
  const ordered = positionals.some((p) => p.startsWith("-")) ? [command, ...flags, "--", ...positionals] : [command, ...positionals, ...flags];
  return [selfInvocation(), ...ordered.map(shellWord)].join(" ");
}

/** `text` with each call `formatCall` wrote in it (`run_tool({tool_id: "a:b", args: {…}})`) as its command line. */
export function withCommandLines(text: string): string {
  let out = "";
  let from = 0;
  for (const match of text.matchAll(CALL_START)) {
    if (match.index < from) continue;
    const read = readCall(text, match.index + match[0].length, match[1] as NextCall["tool"]);
    const line = read && commandLine(read.call);
    if (!read || !line) continue;
    out += text.slice(from, match.index) + line;
    from = read.end;
  }
  return out + text.slice(from);
}

const CALL_START = /\b(search_tools|describe_tool|run_tool)\(\{/g;

/** Reads `key: <JSON>, key: <JSON>})` from `at`, as formatCall writes it. */
function readCall(text: string, at: number, tool: NextCall["tool"]): { call: NextCall; end: number } | undefined {
  const args: Args = {};
  let i = at;
  if (text.startsWith("})", i)) return { call: { tool, arguments: args }, end: i + 2 };
  for (;;) {
    const key = /^([A-Za-z_]\w*): /.exec(text.slice(i, i + 64));
    if (!key) return undefined;
    i += key[0].length;
    const end = jsonEnd(text, i);
    if (end === undefined) return undefined;
    try {
      args[key[1]!] = JSON.parse(text.slice(i, end));
    } catch {
      return undefined;
    }
    i = end;
    if (text.startsWith("})", i)) return { call: { tool, arguments: args }, end: i + 2 };
    if (!text.startsWith(", ", i)) return undefined;
    i += 2;
  }
}

/** Where the JSON value starting at `from` ends: after its closing quote or bracket, or at the `,` or `}` after a number or literal. */
function jsonEnd(text: string, from: number): number | undefined {
  let depth = 0;
  let quoted = false;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') {
        quoted = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === '"') quoted = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (c === "," && depth === 0) return i;
  }
  return undefined;
}
