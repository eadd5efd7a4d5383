/**
 * Logs go to stderr only: stdout carries the MCP protocol when serving on stdio.
 */
import { printable } from "./terminal.js";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(level: LogLevel = "info", write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  // Messages quote backends, servers and agents: nothing of theirs reaches a terminal as a control sequence.
  const emit = (at: LogLevel, message: string) => {
    if (ORDER[at] >= ORDER[level]) write(`metatools ${at}: ${printable(message)}\n`);
  };
  return {
    debug: (m) => emit("debug", m),
    info: (m) => emit("info", m),
    warn: (m) => emit("warn", m),
    error: (m) => emit("error", m),
  };
}

export const silentLogger: Logger = createLogger("silent");
