/**
 * A command's flags, declared once as data: name (the key), type, the
 * placeholder of its value, the values it takes when they are a closed set
 * (from the code's own constant), and one line of help. Parsing, `--help`
 * and docs/reference/cli.md are all made from these declarations (help.ts),
 * so a flag declared is a flag documented.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { LogLevel } from "../util/log.js";

export class UsageError extends Error {}

/**
 * One flag. `value` is the placeholder of its value (`FILE`, `PORT`); a flag
 * with `values` lists them instead (`use|refresh|bypass`), followed by the
 * placeholder when it takes something else too (`cursor|FILE`). Values are
 * checked by whoever owns them (the command, or the meta-tool it calls),
 * not by the parser; an `int` is parsed here, against its `min`.
 */
export type Flag =
  | { readonly type: "boolean"; readonly help: string }
  | { readonly type: "string" | "repeatable"; readonly value?: string; readonly values?: readonly string[]; readonly help: string }
  | { readonly type: "int"; readonly value: string; readonly min: number; readonly help: string };

export type Flags = Readonly<Record<string, Flag>>;

/** What `--name value` gives a command: booleans, strings, string lists (repeatable), whole numbers. */
type ValueOf<F extends Flag> = F["type"] extends "boolean" ? boolean : F["type"] extends "int" ? number : F["type"] extends "repeatable" ? string[] : string;

export type FlagValues<F extends Flags> = { [K in keyof F]?: ValueOf<F[K]> };

export const flag = {
  boolean: (help: string) => ({ type: "boolean", help }) as const,
  string: (value: string, help: string) => ({ type: "string", value, help }) as const,
  /** One of a closed set of values. */
  oneOf: <const V extends readonly string[]>(values: V, help: string) => ({ type: "string", values, help }) as const,
  int: (value: string, min: number, help: string) => ({ type: "int", value, min, help }) as const,
  /** Given again for each value (`--namespace a --namespace b`); `values` are what it takes beside `value` (`cursor|FILE`). */
  repeatable: (value: string, help: string, values?: readonly string[]) => ({ type: "repeatable", value, help, ...(values ? { values } : {}) }) as const,
};

/** `values` as given, checked at compile time to name every member of `U`: a member added to `U` fails the typecheck until it is listed. */
export function everyOf<U extends string>() {
  return <const T extends readonly U[]>(values: T & ([Exclude<U, T[number]>] extends [never] ? unknown : { missing: Exclude<U, T[number]> })): T => values;
}

export const LOG_LEVELS = everyOf<LogLevel>()(["debug", "info", "warn", "error", "silent"]);

/** What every command takes. */
export const COMMON = {
  config: flag.string("FILE", "the config file; default ./metatools.json, or $METATOOLS_CONFIG"),
  root: flag.string("DIR", "the code tools' project root; default the working directory"),
  "log-level": flag.oneOf(LOG_LEVELS, "how much is logged to stderr"),
} as const satisfies Flags;

/** Flags several commands share, declared here once. */
export const SHARED = {
  json: flag.boolean("print the result as JSON, for scripts"),
  refresh: flag.boolean("start the servers and list their tools again first (default: answer from the snapshot of each server's last tool list)"),
} as const satisfies Flags;

/** `--name PLACEHOLDER`, or `--name a|b|c`, or `--name` for a boolean. */
export function flagWords(name: string, spec: Flag): string {
  if (spec.type === "boolean") return `--${name}`;
  const takes = [...("values" in spec && spec.values ? spec.values : []), ...(spec.value ? [spec.value] : [])].join("|");
  return `--${name} ${takes}`;
}

/**
 * Parses a command's flags (plus the common ones): unknown flags and a
 * value that is not a whole number of an `int` flag are usage errors.
 */
export function parseFlags<F extends Flags>(argv: string[], flags: F): { values: FlagValues<F & typeof COMMON>; positionals: string[] } {
  const all: Flags = { ...COMMON, ...flags };
  const options: NonNullable<ParseArgsConfig["options"]> = Object.fromEntries(
    Object.entries(all).map(([name, spec]) => [name, spec.type === "boolean" ? { type: "boolean" } : { type: "string", multiple: spec.type === "repeatable" }]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const values: Record<string, unknown> = { ...parsed.values };
  for (const [name, spec] of Object.entries(all)) if (spec.type === "int") values[name] = intFlag(values[name] as string | undefined, name, spec.min);
  return { values: values as FlagValues<F & typeof COMMON>, positionals: parsed.positionals };
}

export function intFlag(value: string | boolean | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number ≥ ${min}, got "${String(value)}"`);
  return n;
}

/** `value` if the flag's declaration lists it, else a usage error that lists them. */
export function oneOf<V extends string>(value: string, name: string, values: readonly V[]): V {
  if ((values as readonly string[]).includes(value)) return value as V;
  throw new UsageError(`--${name} takes ${values.slice(0, -1).join(", ")} or ${values.at(-1)}, got "${value}"`);
}

export function logLevel(value: string | undefined, fallback: LogLevel): LogLevel {
  return value === undefined ? fallback : oneOf(value, "log-level", LOG_LEVELS);
}
