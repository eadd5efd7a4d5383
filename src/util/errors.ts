import type { ErrorCode } from "../model/error-codes.js";

/**
 * Faults: errors that are thrown. Each carries a stable `code`, one of the
 * listed `ErrorCode`s, so callers and tests branch on the code, not on the
 * message, and a misspelt code fails the typecheck.
 * Expected failures an agent can fix are not thrown; they are returned as
 * content (see `src/disclosure/`).
 */
export class MetatoolsError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "MetatoolsError";
  }
}

/** A configuration or catalog file that cannot be used; names the file and the field. */
export class ConfigError extends MetatoolsError {
  constructor(
    readonly file: string,
    readonly field: string,
    /** What is wrong, without the file and field. */
    readonly detail: string,
  ) {
    super("config_invalid", `${file}: ${field ? `${field}: ` : ""}${detail}`);
    this.name = "ConfigError";
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
