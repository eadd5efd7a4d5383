/**
 * Regular expressions from agents, matched in time linear in the input.
 *
 * A backtracking engine (JavaScript's RegExp) can take exponential time on a
 * pattern such as `(a+)+$`, and it runs on the event loop: one call would
 * freeze every client. Patterns are therefore compiled with RE2JS, a pure
 * JavaScript port of RE2 (as used by Go and, in spirit, ripgrep), whose
 * running time is linear in the input for every pattern. Patterns without
 * any repetition run on V8's engine instead: without a quantifier there is
 * nothing to backtrack over, and V8 is several times faster.
 *
 * The syntax is RE2's, which is JavaScript's minus lookaround and
 * backreferences; `\uXXXX` and `\u{X}` are accepted and translated.
 */
import type { RE2JS } from "re2js";
import { errorMessage } from "./errors.js";
import { lazyRequire } from "./lazy-require.js";

/** RE2JS, read at the first pattern that needs it (most patterns are flat and run on V8). */
const re2 = lazyRequire<{ RE2JS: typeof RE2JS }>("re2js");

/**
 * RE2's work per input character grows with the compiled program, so a
 * pattern such as `\w{1000}\w{1000}` (2,000 instructions) is linear but slow;
 * beyond this size a pattern is refused. Within it, a pattern can still take
 * seconds over a large file, which is why matching over files and outputs
 * runs in a worker thread that a deadline terminates (regex-worker.ts).
 */
export const MAX_PROGRAM = 600;

export interface RegexOptions {
  ignoreCase?: boolean;
  /** `^` and `$` match at line breaks. */
  multiline?: boolean;
}

export interface SafeRegex {
  /** True when the pattern matches somewhere in `text`. */
  test(text: string): boolean;
  /** Where the first match starts, or -1. */
  search(text: string): number;
  readonly engine: "v8" | "re2";
  /** What a worker thread needs to compile the same matcher (regex-worker.ts). */
  readonly spec: RegexSpec;
  /** Worst-case work per character searched, in rough steps: the pattern's length (V8) or RE2's program size. */
  readonly weight: number;
}

/** A compiled pattern, as data: the engine, the source it takes, and its flags. */
export interface RegexSpec {
  engine: "v8" | "re2";
  source: string;
  /** V8: a flags string. RE2: RE2JS flag bits. */
  flags: string | number;
}

/** Longest pattern accepted: longer ones are documents, not searches, and cost per character searched. */
export const MAX_PATTERN = 1000;
/** Longest flat pattern run on V8, whose cost per character searched grows with the pattern's length. */
const MAX_FLAT = 200;

/** Smart case, as ripgrep: case-insensitive unless the pattern has a capital letter outside an escape (`\D`, `\W`, `\p{Lu}`). */
export function smartCaseInsensitive(pattern: string): boolean {
  // Cut first: a longer pattern is refused anyway, and the scan stays small.
  return !/[A-Z]/.test(pattern.slice(0, MAX_PATTERN + 1).replace(/\\([pP]\{[^}]*\}|.)/g, ""));
}

/** A pattern as replies quote it: whole when short, else its start and its length. */
export function shownPattern(pattern: string, max: number): string {
  return pattern.length <= max ? pattern : `${pattern.slice(0, max)}… (${pattern.length} characters)`;
}

/** A pattern that cannot be used, with a sentence for the agent. */
export class RegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegexError";
  }
}

/** Compiles `pattern`, or throws RegexError saying what is wrong and how to write it instead. */
export function compileRegex(pattern: string, options: RegexOptions = {}): SafeRegex {
  if (pattern.length > MAX_PATTERN)
    throw new RegexError(`the pattern is ${pattern.length} characters, over the limit of ${MAX_PATTERN}; search for a distinctive part of it`);
  if (pattern.length <= MAX_FLAT && isFlat(pattern)) {
    const flags = `${options.ignoreCase ? "i" : ""}${options.multiline ? "m" : ""}u`;
    try {
      const regex = new RegExp(pattern, flags);
      return {
        engine: "v8",
        spec: { engine: "v8", source: pattern, flags },
        weight: Math.max(1, pattern.length),
        test: (text) => regex.test(text),
        search: (text) => text.search(regex),
      };
    } catch {
      // Not valid for V8 under the u flag: RE2 decides, and its message is the one shown.
    }
  }
  let compiled: RE2JS;
  const source = translate(pattern);
  const { RE2JS: engine } = re2();
  const flags = (options.ignoreCase ? engine.CASE_INSENSITIVE : 0) | (options.multiline ? engine.MULTILINE : 0);
  try {
    compiled = engine.compile(source, flags);
  } catch (error) {
    throw new RegexError(explain(errorMessage(error).replace(/^error parsing regexp: /, "")));
  }
  const size = programSize(compiled);
  if (size > MAX_PROGRAM) {
    throw new RegexError(
      `the pattern compiles to ${size} states, over the limit of ${MAX_PROGRAM}; use smaller counted repetitions (e.g. \\w+ instead of \\w{500})`,
    );
  }
  return {
    engine: "re2",
    spec: { engine: "re2", source, flags },
    weight: Math.max(1, size),
    test: (text) => compiled.test(text),
    search: (text) => {
      const matcher = compiled.matcher(text);
      return matcher.find() ? matcher.start() : -1;
    },
  };
}

const LINEAR = "patterns run on a linear-time engine (RE2 syntax) so that none can hang the server";

/** RE2's message, with what to do instead where JavaScript syntax has no linear-time equivalent. */
function explain(raw: string): string {
  // RE2JS quotes the pattern with the flags it prepended (`(?m)…`): the agent should see its own pattern.
  const message = raw.replace(/`\(\?[imsU]+\)/g, "`");
  if (/`\(\?<?[=!]/.test(message))
    return `lookahead and lookbehind ((?=…), (?!…), (?<=…), (?<!…)) are not supported: ${LINEAR}; match the surrounding text instead`;
  if (/escape sequence: `\\([1-9]|k)/.test(message)) return `backreferences (\\1, \\k<name>) are not supported: ${LINEAR}`;
  return message;
}

/**
 * No quantifier and no group: then V8's backtracking is bounded by the
 * pattern's length at each position. (Groups alone are not enough:
 * `(a|a)(a|a)…b` backtracks exponentially without any quantifier.)
 */
function isFlat(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") i++;
    else if (inClass) inClass = ch !== "]";
    else if (ch === "[") inClass = true;
    else if ("*+?{(".includes(ch!)) return false;
  }
  return true;
}

/** JavaScript escapes RE2 spells otherwise: `\uXXXX` and `\u{X}` are `\x{X}`; `\/` is `/`. */
function translate(pattern: string): string {
  return pattern.replace(
    /\\(\\)|\\u\{([0-9A-Fa-f]+)\}|\\u([0-9A-Fa-f]{4})|\\\//g,
    (whole, backslash: string | undefined, braced: string | undefined, four: string | undefined) => {
      if (backslash) return whole;
      if (braced || four) return `\\x{${braced ?? four}}`;
      return "/";
    },
  );
}

/** The number of instructions in RE2's program; 0 when this RE2JS version does not expose it. */
function programSize(compiled: RE2JS): number {
  const program = (compiled as unknown as { re2Input?: { prog?: { inst?: unknown[] } } }).re2Input?.prog?.inst;
  return Array.isArray(program) ? program.length : 0;
}
