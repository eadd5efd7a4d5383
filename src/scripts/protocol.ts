/**
 * What the sandbox's parent (sandbox.ts) and its worker (sandbox-worker.ts)
 * say to each other: only data, as structured clones of JSON text and
 * numbers. Types only, and the wrapper a program's source goes in.
 */

/** What the parent tells the worker. */
export type ToWorker =
  | { type: "run"; runId: number; code: string; inputJson: string; limits: WorkerLimits }
  | { type: "answer"; runId: number; callId: number; ok: true; json: string; warnings?: string[] }
  | { type: "answer"; runId: number; callId: number; ok: false; errorJson: string }
  | { type: "cancel"; runId: number; reason: string };

/** What the worker tells the parent. */
export type FromWorker =
  | { type: "ready" }
  | { type: "call"; runId: number; callId: number; op: "call" | "search" | "describe"; argsJson: string; toolId?: string }
  | { type: "log"; runId: number; line: string }
  | { type: "done"; runId: number; cpuMs: number; outcome: WorkerOutcome };

export interface WorkerLimits {
  cpuMs: number;
  /** Characters of the program's return value as JSON. */
  returnChars: number;
  /** Calls of tools.call/search/describe in one run. */
  calls: number;
  logLines: number;
  /** Characters of one log line. */
  logLineChars: number;
  /** Characters of one call's arguments as JSON: past it the call fails in the program, and nothing is sent. */
  argsChars: number;
}

/** Which limit a run passed. */
export type LimitKind = "cpuMs" | "memory" | "returnChars" | "calls" | "stack";

export type WorkerOutcome =
  | { ok: true; json: string; droppedLogs: number }
  | {
      ok: false;
      /** thrown: the program threw or did not parse; limit: it passed one (`limit` says which); cancelled; deadlock: it waits on nothing. */
      kind: "thrown" | "limit" | "cancelled" | "deadlock";
      name: string;
      message: string;
      line?: number;
      column?: number;
      limit?: LimitKind;
      droppedLogs: number;
    };

/** The program's wrapper: its source is the body of an async function (`await` and `return` at its top level); what it returns leaves as JSON. */
export const WRAPPER_HEAD = "(async () => {";
