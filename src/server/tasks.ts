/**
 * Calls of 2026-07-28 clients that became tasks (the
 * `io.modelcontextprotocol/tasks` extension): a run_tool call still running
 * after `serve.taskAfterMs`, of a client that declared the extension, is
 * answered at once with a task; the client reads it with `tasks/get`,
 * answers its questions with `tasks/update` and stops it with
 * `tasks/cancel`.
 *
 * The call runs in the process that started it. What the client reads is
 * the task's record in the store (the relay part): with a shared store
 * (Redis), any replica answers `tasks/get`, and an answer or a cancel given
 * to another replica reaches the one running the call through the store.
 * That process says it is alive every few seconds; a task whose process
 * stopped saying so is reported failed, never left "working" forever.
 *
 * A task belongs to the caller that started it: another caller's id is
 * unknown, exactly as an id that never existed. Its record is kept in that
 * caller's share of the task store (task-records.ts): a caller's many
 * tasks forget its own oldest, never another's.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/server";
import { answerOf, type ParkedCall, type Step } from "./parked-call.js";
import { awaitAnswer, type Running } from "./task-running.js";
import { questionRequest, type RelayStore } from "./questions.js";
import { progressWords, TERMINAL, view, type TaskRecord, type TaskView } from "./task-record.js";
import { refusedForRoom, TaskRecords, type TaskStore } from "./task-records.js";

/** The extension's id, in the capabilities of a client that takes tasks and of a server that makes them. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How often a client is told to poll. */
const POLL_INTERVAL_MS = 1000;
/** How often the process running a task says it is alive; three missed and the task is reported failed. */
const ALIVE_MS = 5000;
/** How often the process running a task looks in a shared store for an answer or a cancel given to another replica. */
const WATCH_MS = 250;
/** The fastest a task's progress is written to the store. */
const PROGRESS_WRITE_MS = 1000;
/** JSON-RPC's internal error, for a task whose call failed. */
const INTERNAL_ERROR = -32603;

export interface TaskOptions {
  /** How long a call runs before it becomes a task. */
  afterMs: number;
  /** How long a task is kept after its last change. */
  ttlMs: number;
  /** How long a task's question waits for its answer; then the call is cancelled. */
  questionMs: number;
  /** The store is shared with other processes (Redis): look there for answers and cancels given to them. */
  shared: boolean;
}

/** Who asks for a task: the caller under its profile (whose tasks it may see), and the caller alone (whose share they take). */
export interface TaskCaller {
  owner: string;
  caller: string;
}

/** What a lookup of a task found that is not the task: it never was (or is another's), or it was forgotten for its caller's later ones. */
export type TaskGone = "unknown" | "forgotten";

export class TaskBoard {
  private readonly running = new Map<string, Running>();
  private readonly records: TaskRecords;

  constructor(
    /** Where answers and cancels given to another replica travel. */
    private readonly store: RelayStore,
    /** Where the records are kept, each caller in its share (task-records.ts). */
    records: TaskStore,
    readonly options: TaskOptions,
  ) {
    this.records = new TaskRecords(records, options.ttlMs);
  }

  /** Tasks running in this process. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Makes a task of `call`, still working: `pending` is the step it is
   * waited for (on `controller`'s signal, which cancels it). Returns the
   * task as created, the call going on in the background; undefined when
   * the store has no room for it (the call is then waited for as it is).
   */
  async adopt(call: ParkedCall, pending: Promise<Step>, { owner, caller }: TaskCaller, controller: AbortController): Promise<TaskView | undefined> {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.options.ttlMs,
      pollIntervalMs: POLL_INTERVAL_MS,
      owner,
      caller,
      aliveAt: Date.now(),
    };
    try {
      await this.records.save(record);
    } catch (error) {
      if (refusedForRoom(error)) return undefined;
      // A store that fails: the task is made, and its record written at its next change.
    }
    const task: Running = { record, call, controller, cancelled: false, questions: 0 };
    this.running.set(record.taskId, task);
    void this.drive(task, pending);
    return view(record);
  }

  /** The task `taskId` of `who`; why not, when there is none (or it is another's) or it was forgotten for room. */
  async get(taskId: string, who: TaskCaller): Promise<TaskView | TaskGone> {
    const record = await this.lookup(taskId, who);
    if (typeof record === "string") return record;
    if (!TERMINAL.has(record.status) && !this.running.has(taskId) && Date.now() - record.aliveAt > 3 * ALIVE_MS) {
      // The process running it stopped (killed, or lost): what it was doing is lost with it.
      return view({
        ...record,
        status: "failed",
        inputRequests: undefined,
        error: { code: INTERNAL_ERROR, message: "the metatools process running this task stopped before it finished; run the tool again" },
      });
    }
    return view(record);
  }

  /** The client's answers to the task's question; why not, when the task is not `who`'s (or forgotten). An answer to no open question is ignored. */
  async update(taskId: string, who: TaskCaller, responses: Record<string, unknown>): Promise<true | TaskGone> {
    const task = this.running.get(taskId);
    const record = await this.lookup(taskId, who);
    if (typeof record === "string") return record;
    const key = Object.keys(record.inputRequests ?? {})[0];
    if (record.status !== "input_required" || key === undefined || !(key in responses)) return true;
    const answer = answerOf(responses[key]);
    if (task) {
      if (task.waiting?.key === key) task.waiting.answer(answer);
    } else if (this.options.shared) {
      await this.store.set(`task-answer/${taskId}/${key}`, answer, this.options.questionMs);
    }
    return true;
  }

  /** Cancels the task (the backend's call with it); why not, when it is not `who`'s (or forgotten). A finished task stays as it ended. */
  async cancel(taskId: string, who: TaskCaller): Promise<true | TaskGone> {
    const task = this.running.get(taskId);
    const record = await this.lookup(taskId, who);
    if (typeof record === "string") return record;
    if (TERMINAL.has(record.status)) return true;
    if (task) this.stop(task);
    else if (this.options.shared) await this.store.set(`task-cancel/${taskId}`, true, this.options.ttlMs);
    return true;
  }

  /** Ends every task this process runs (the server is closing). */
  close(): void {
    for (const task of this.running.values()) {
      task.controller.abort(new Error("the server is closing"));
      task.call.abandon("the server is closing");
    }
  }

  private stop(task: Running, reason = "the task was cancelled by its client"): void {
    task.cancelled = true;
    task.controller.abort(new Error(reason));
    // A call waiting for its question's answer is not waited on by anyone: it is told, and stopped.
    task.call.abandon(reason);
  }

  /** Follows the call to its end, writing each change to the store. */
  private async drive(task: Running, pending: Promise<Step>): Promise<void> {
    const { record, call, controller } = task;
    const alive = setInterval(() => void this.save(record), ALIVE_MS);
    alive.unref();
    const watching = this.options.shared ? this.watch(task) : undefined;
    let lastWrite = 0;
    call.progress = (update) => {
      record.statusMessage = progressWords(update);
      if (Date.now() - lastWrite < PROGRESS_WRITE_MS) return;
      lastWrite = Date.now();
      void this.save(record);
    };
    let next = pending;
    try {
      for (;;) {
        const step = await next;
        if (step.kind === "result") {
          if (task.cancelled) return this.end(task, { status: "cancelled" });
          // The result as a `tools/call` would have answered it: a complete one.
          return this.end(task, { status: "completed", result: { ...step.result, resultType: "complete" } as CallToolResult });
        }
        const answer = await this.ask(task, step);
        record.status = "working";
        record.inputRequests = undefined;
        await this.save(record);
        call.answer(answer);
        next = call.next(controller.signal);
      }
    } catch (error) {
      if (task.cancelled) return this.end(task, { status: "cancelled" });
      const message = error instanceof Error ? error.message : String(error);
      return this.end(task, { status: "failed", error: { code: INTERNAL_ERROR, message } });
    } finally {
      clearInterval(alive);
      call.progress = undefined;
      this.running.delete(record.taskId);
      await watching;
    }
  }

  /** Puts the call's question to the client as the task's `inputRequests`; resolves with the answer (from this replica or another). */
  private async ask(task: Running, step: Extract<Step, { kind: "question" }>): Promise<ElicitResult> {
    const { key, answered } = awaitAnswer(task, this.options.questionMs);
    task.record.status = "input_required";
    task.record.inputRequests = { [key]: questionRequest(step.params) };
    await this.save(task.record);
    return answered;
  }

  /** With a shared store: an answer or a cancel another replica was given, while the task runs here. */
  private async watch(task: Running): Promise<void> {
    const id = task.record.taskId;
    while (this.running.get(id) === task) {
      await sleep(WATCH_MS, undefined, { ref: false });
      if (this.running.get(id) !== task) return;
      if (await this.store.get<boolean>(`task-cancel/${id}`).catch(() => undefined)) this.stop(task);
      const waiting = task.waiting;
      if (!waiting) continue;
      const answer = await this.store.get<ElicitResult>(`task-answer/${id}/${waiting.key}`).catch(() => undefined);
      if (answer && task.waiting === waiting) waiting.answer(answer);
    }
  }

  private async end(task: Running, outcome: Pick<TaskView, "status" | "result" | "error">): Promise<void> {
    const { record } = task;
    Object.assign(record, outcome, { inputRequests: undefined });
    if (outcome.status === "cancelled") record.statusMessage = "cancelled by the client";
    else if (outcome.status !== "working") record.statusMessage = undefined;
    await this.records.saveLast(record);
  }

  /** Writes the record; a write that fails leaves the last one: the client reads an older status, and the next write mends it. */
  private async save(record: TaskRecord): Promise<void> {
    await this.records.save(record).catch(() => {});
  }

  /** The task as `who` may see it: this process's running one, or the record in the store; another owner's is unknown. */
  private async lookup(taskId: string, who: TaskCaller): Promise<TaskRecord | TaskGone> {
    const running = this.running.get(taskId)?.record;
    const found = running ? ({ kind: "found", record: running } as const) : await this.records.read(who.caller, taskId);
    if (found.kind === "forgotten") return "forgotten";
    if (found.kind !== "found" || found.record.owner !== who.owner) return "unknown";
    return found.record;
  }
}
