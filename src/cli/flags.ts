import { parseArgs, type ParseArgsConfig } from "node:util";
import type { LogLevel } from "../util/log.js";

export class UsageError extends Error {}

/** What every command takes (registry.ts's COMMON_FLAGS says so); a command's own are in command-flags.ts. */
export const COMMON = {
  config: { type: "string" },
  root: { type: "string" },
  "log-level": { type: "string" },
} as const satisfies ParseArgsConfig["options"];

type FlagConfig<O> = { args: string[]; options: typeof COMMON & O; allowPositionals: true; strict: true };

/** Parses a subcommand's flags (plus the common ones); unknown flags are usage errors. */
export function parseFlags<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O): ReturnType<typeof parseArgs<FlagConfig<O>>> {
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function intFlag(value: string | boolean | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} takes a whole number ≥ ${min}, got "${String(value)}"`);
  return n;
}

export function logLevel(value: string | boolean | undefined, fallback: LogLevel): LogLevel {
  if (value === undefined) return fallback;
  if (typeof value === "string" && ["debug", "info", "warn", "error", "silent"].includes(value)) return value as LogLevel;
  throw new UsageError(`--log-level takes debug, info, warn, error or silent, got "${String(value)}"`);
}
