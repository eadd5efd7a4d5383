/**
 * What a program's calls reach (src/scripts/, src/meta/program-host.ts): one
 * call as the run_tool path makes it, a search or a describe as the
 * meta-tools answer them. Handed to a built-in tool with its call, so a tool
 * that runs programs (`metatools:run_program`) calls back through the same
 * path, with the same caller, profile and client.
 */

/** Which of the three a program asked for. */
export type ProgramOp = "call" | "search" | "describe";

/** A call's answer: its data, JSON-safe (with the result scanner's warnings, if any), or the refusal's fields, thrown into the program as an error. */
export type ProgramAnswer = { ok: true; value: unknown; warnings?: string[]; cache?: string } | { ok: false; error: ProgramError };

/** A refusal's fields as the program's error carries them: its code and message, its guidance, what it offers to fix. */
export type ProgramError = Record<string, unknown> & { code: string; message: string };

export interface ProgramHost {
  /** `toolId` for a call; `args` as the program gave them (a search's or describe's own arguments). */
  call(op: ProgramOp, args: unknown, toolId: string | undefined, signal: AbortSignal): Promise<ProgramAnswer>;
  /** Who runs it: a caller's programs share its part of the sandbox's workers. */
  readonly caller?: string;
  /** The run's id, as its calls' audit records name it (`run_…`). */
  readonly run?: string;
  /** What the caller's profile lowers of the server's limits (metatools.profiles.NAME.scripts). */
  readonly limits?: ProgramLimitsOverride;
}

/** A profile's lower limits for its callers' programs. */
export interface ProgramLimitsOverride {
  cpuMs?: number;
  maxCalls?: number;
  concurrency?: number;
  logLines?: number;
  returnChars?: number;
  resultBytes?: number;
}
