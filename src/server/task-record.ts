/**
 * A task as the store keeps it and as a client reads it (`tasks/get`), for
 * the board that runs tasks (tasks.ts).
 */
import type { CallToolResult, InputRequest } from "@modelcontextprotocol/server";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A task as `tasks/get` shows it (and, without its outcome, as `tools/call` creates it). */
export interface TaskView {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  inputRequests?: Record<string, InputRequest>;
  result?: CallToolResult;
  error?: { code: number; message: string };
}

/** What the store keeps of a task: its view, whose it is, and when its process last said it was alive. */
export interface TaskRecord extends TaskView {
  /** Who may read it: the caller under the profile it called with. */
  owner: string;
  /** Whose share of task records it takes: the caller alone (its bearer token), under any profile. */
  caller: string;
  aliveAt: number;
}

export const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

/** What the client reads: the record without whose it is. */
export function view(record: TaskRecord): TaskView {
  const { owner: _owner, caller: _caller, aliveAt: _alive, ...shown } = record;
  return Object.fromEntries(Object.entries(shown).filter(([, value]) => value !== undefined)) as unknown as TaskView;
}

/** A progress update as a status message: "3/10: step 3". */
export function progressWords(update: { progress: number; total?: number; message?: string }): string {
  const count = update.total === undefined ? String(update.progress) : `${update.progress}/${update.total}`;
  return update.message ? `${count}: ${update.message}` : count;
}
