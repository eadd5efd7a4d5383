/**
 * Where tasks are kept for their clients to read: each caller's records in
 * its own share of the store (results included), so one caller's tasks
 * never push out another's. Past its share, a caller's own oldest records
 * go first, and reading one then says it was forgotten for room; past the
 * store's total, a call does not become a task at all. The store is the
 * app's quota store (src/store/quota.ts fits TaskStore): in this process,
 * or one Redis every replica shares.
 */
import type { TaskRecord } from "./task-record.js";

/** JSON-RPC's internal error, for a task whose result could not be kept. */
const INTERNAL_ERROR = -32603;

/** What the records are kept in: values owned by a caller, each caller within its share, put again as they change. */
export interface TaskStore {
  /** Rejects when the value cannot be kept: larger than a caller's share, or the store at its total bound (an error with `code: "store_full"`), or the store failing. */
  put(owner: string, id: string, value: unknown, ttlMs: number): Promise<unknown>;
  get<T>(owner: string, id: string): Promise<{ kind: "found"; value: T } | { kind: "evicted" } | { kind: "dropped" } | { kind: "missing" }>;
}

/** What reading a task found: it, or why it is gone. */
export type TaskLookup =
  | { kind: "found"; record: TaskRecord }
  /** Forgotten to make room for its caller's later tasks (within `taskBytesPerCaller`), before its time to live was over. */
  | { kind: "forgotten" }
  | { kind: "missing" };

/** Whether a store refused a value for a bound (not a failure of the store). */
export function refusedForRoom(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "store_full";
}

export class TaskRecords {
  constructor(
    private readonly store: TaskStore,
    private readonly ttlMs: number,
  ) {}

  /** Writes the record as it is now, in its caller's share; rejects as the store does. */
  async save(record: TaskRecord): Promise<void> {
    record.lastUpdatedAt = new Date().toISOString();
    record.aliveAt = Date.now();
    await this.store.put(record.caller, keyOf(record.taskId), { ...record }, this.ttlMs);
  }

  /**
   * Writes a task's last record. A result larger than its caller's whole share of task records (or with the store at
   * its total) is not kept: the task ends failed, saying so. Another failure leaves the last record written.
   */
  async saveLast(record: TaskRecord): Promise<void> {
    try {
      await this.save(record);
    } catch (error) {
      if (!refusedForRoom(error) || record.result === undefined) return;
      Object.assign(record, {
        status: "failed",
        result: undefined,
        error: {
          code: INTERNAL_ERROR,
          message:
            "the tool finished, and its result is larger than one caller's share of task records (metatools.serve.taskBytesPerCaller) or the store is full: it was not kept. Run the tool again asking for less",
        },
      });
      await this.save(record).catch(() => {});
    }
  }

  /** The record of `caller`'s task `taskId`; a store that fails reads as missing (the client asks again). */
  async read(caller: string, taskId: string): Promise<TaskLookup> {
    const found = await this.store.get<TaskRecord>(caller, keyOf(taskId)).catch(() => ({ kind: "missing" }) as const);
    if (found.kind === "found") return { kind: "found", record: found.value };
    return { kind: found.kind === "evicted" ? "forgotten" : "missing" };
  }
}

function keyOf(taskId: string): string {
  return `task/${taskId}`;
}
