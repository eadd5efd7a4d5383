/**
 * What a `metatools` command is: one declaration (its flags, what it is for,
 * its handler) from which its parsing, its `--help` and its section of
 * docs/reference/cli.md are all made.
 */
import { COMMON, flagWords, type Flag, type Flags } from "./flags.js";

/** The headings `metatools --help` lists the commands under, in its order. */
export const COMMAND_GROUPS = {
  start: "set up, check, serve",
  use: "find and run tools, as an agent does",
  govern: "who may run what",
  tune: "what search knows",
  measure: "measure",
} as const;
export type CommandGroup = keyof typeof COMMAND_GROUPS;

export interface CommandSpec<F extends Flags = Flags> {
  /** What follows `metatools`. */
  name: string;
  /** Where `metatools --help` lists it. */
  group: CommandGroup;
  /** One line: what it is for. */
  summary: string;
  /** The positional arguments as the usage line shows them (`ID...`, `QUERY`). */
  args?: string;
  /**
   * The usage line, when the flags go together in forms (`--show [--json] | --reset`):
   * written with each flag's words (`f.show`), so a renamed flag fails the typecheck.
   * Without it, the usage line is `args` and then every flag, each optional.
   */
  usage?(f: { readonly [K in keyof F]: string }): string;
  /** Sentences for what the flags' own help cannot say, shown by `--help` and in the reference. */
  details?: string;
  /** Every flag the command parses beside the common ones. */
  flags: F;
  /** Parses `argv` with `flags` and does the work; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}

export type Command<F extends Flags = Flags> = CommandSpec<F>;

/**
 * A command as the generated index (`command-index.ts`) lists it: enough for
 * `metatools --help` and routing, and how to load the rest.
 */
export interface CommandEntry {
  name: string;
  group: CommandGroup;
  summary: string;
  /** What `metatools NAME` takes (`synopsis` of its declaration). */
  synopsis: string;
  load(): Promise<{ command: Command }>;
}

/** Keeps the flags' types, so a command parses with its own `command.flags` and gets typed values. */
export const defineCommand = <F extends Flags>(spec: CommandSpec<F>): CommandSpec<F> => spec;

/** `[--name VALUE]`, and `...` after it when the flag may be repeated. */
function optional(name: string, spec: Flag): string {
  return `[${flagWords(name, spec)}]${spec.type === "repeatable" ? "..." : ""}`;
}

const mentions = (text: string, name: string): boolean => new RegExp(`(?<![\\w-])--${name}(?![\\w-])`).test(text);

/** What follows `metatools NAME`: its forms, or its arguments and flags; a flag the forms leave out is added at the end, so every flag is named. */
export function synopsis(command: CommandSpec): string {
  const flags = Object.entries(command.flags);
  const words = Object.fromEntries(flags.map(([name, spec]) => [name, flagWords(name, spec)]));
  const written = command.usage ? command.usage(words) : (command.args ?? "");
  const rest = flags.filter(([name]) => !command.usage || !mentions(written, name)).map(([name, spec]) => optional(name, spec));
  return [written, ...rest].filter(Boolean).join(" ");
}

/** The flags two columns wide: each flag's words, then its help, wrapped to `width`. */
export function flagLines(flags: Flags, width = 78): string[] {
  const entries = Object.entries(flags).map(([name, spec]) => [flagWords(name, spec), helpOf(spec)] as const);
  const column = Math.min(Math.max(0, ...entries.map(([words]) => words.length)), 26);
  return entries.flatMap(([words, help]) => {
    const lines = wrap(help, width - column - 4);
    if (words.length > column) return [`  ${words}`, ...lines.map((line) => `  ${" ".repeat(column + 2)}${line}`)];
    return lines.map((line, i) => `  ${(i ? "" : words).padEnd(column)}  ${line}`);
  });
}

/** A flag's help, with what its type says: that it may be repeated. */
export function helpOf(spec: Flag): string {
  return spec.type === "repeatable" ? `${spec.help} (repeatable)` : spec.help;
}

/** The flags every command takes, as a sentence. */
export function commonFlags(): string {
  const parts = Object.entries(COMMON).map(([name, spec]) => `${flagWords(name, spec)} (${spec.help})`);
  return `Every command takes ${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}.`;
}

export const EXIT_CODES =
  "Exit codes: 0 done; 1 the operation failed or found problems (the message says what to do); 2 bad usage or an invalid config (the message names the file and the field).";

/** `metatools NAME --help`: the usage, what it is for, the details, its flags, and the flags every command takes. */
export function commandHelp(command: Command): string {
  const flags = flagLines(command.flags);
  return [
    `metatools ${command.name} ${synopsis(command)}`,
    `  ${command.summary}`,
    ...(command.details ? ["", ...wrap(command.details, 76).map((line) => `  ${line}`)] : []),
    ...(flags.length ? ["", ...flags] : []),
    "",
    `  Also: ${Object.entries(COMMON)
      .map(([name, spec]) => flagWords(name, spec))
      .join(", ")} (see metatools help).`,
  ].join("\n");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}
