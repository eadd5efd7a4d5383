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
 * unknown, exactly as an id that never existed.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/server";
import { answerOf, type ParkedCall, type Step } from "./parked-call.js";
import { questionRequest, type RelayStore } from "./questions.js";
import { progressWords, TERMINAL, view, type TaskRecord, type TaskView } from "./task-record.js";

/** The extension's id, in the capabilities of a client that takes tasks and of a server that makes them. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** A task this process runs. */
interface Running {
  record: TaskRecord;
  call: ParkedCall;
  controller: AbortController;
  /** The key of the question waiting for its answer, and where the answer goes. */
  waiting?: { key: string; answer(result: ElicitResult): void };
  cancelled: boolean;
  questions: number;
}

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

export class TaskBoard {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly store: RelayStore,
    readonly options: TaskOptions,
  ) {}

  /** Tasks running in this process. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Makes a task of `call`, still working: `pending` is the step it is
   * waited for (on `controller`'s signal, which cancels it). Returns the
   * task as created; the call goes on in the background.
   */
  async adopt(call: ParkedCall, pending: Promise<Step>, owner: string, controller: AbortController): Promise<TaskView> {
    const now = new Date().toISOString();
    const record: TaskRecord = {
      taskId: randomUUID(),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.options.ttlMs,
      pollIntervalMs: POLL_INTERVAL_MS,
      owner,
      aliveAt: Date.now(),
    };
    const task: Running = { record, call, controller, cancelled: false, questions: 0 };
    this.running.set(record.taskId, task);
    await this.save(record);
    void this.drive(task, pending);
    return view(record);
  }

  /** The task `taskId` of `owner`; undefined when there is none (or it is another's). */
  async get(taskId: string, owner: string): Promise<TaskView | undefined> {
    const record = this.running.get(taskId)?.record ?? (await this.read(taskId));
    if (!record || record.owner !== owner) return undefined;
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

  /** The client's answers to the task's question; false when the task is unknown to `owner`. An answer to no open question is ignored. */
  async update(taskId: string, owner: string, responses: Record<string, unknown>): Promise<boolean> {
    const task = this.running.get(taskId);
    const record = task?.record ?? (await this.read(taskId));
    if (!record || record.owner !== owner) return false;
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

  /** Cancels the task (the backend's call with it); false when it is unknown to `owner`. A finished task stays as it ended. */
  async cancel(taskId: string, owner: string): Promise<boolean> {
    const task = this.running.get(taskId);
    const record = task?.record ?? (await this.read(taskId));
    if (!record || record.owner !== owner) return false;
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
    const key = `question-${++task.questions}`;
    const { record, controller } = task;
    record.status = "input_required";
    record.inputRequests = { [key]: questionRequest(step.params) };
    const answered = new Promise<ElicitResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        task.call.abandon(`the question was not answered within ${Math.round(this.options.questionMs / 1000)} s`);
        reject(new Error(`the question was not answered within ${Math.round(this.options.questionMs / 1000)} s`));
      }, this.options.questionMs);
      timer.unref();
      const onAbort = () => {
        clearTimeout(timer);
        reject(controller.signal.reason instanceof Error ? controller.signal.reason : new Error("the task ended"));
      };
      if (controller.signal.aborted) return onAbort();
      controller.signal.addEventListener("abort", onAbort, { once: true });
      task.waiting = {
        key,
        answer: (result) => {
          clearTimeout(timer);
          controller.signal.removeEventListener("abort", onAbort);
          task.waiting = undefined;
          resolve(result);
        },
      };
    });
    await this.save(record);
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
    Object.assign(task.record, outcome, { inputRequests: undefined });
    if (outcome.status === "cancelled") task.record.statusMessage = "cancelled by the client";
    else if (outcome.status !== "working") task.record.statusMessage = undefined;
    await this.save(task.record);
  }

  private async save(record: TaskRecord): Promise<void> {
    record.lastUpdatedAt = new Date().toISOString();
    record.aliveAt = Date.now();
    // A write that fails leaves the last one: the client reads an older status, and the next write mends it.
    await this.store.set(`task/${record.taskId}`, { ...record }, this.options.ttlMs).catch(() => {});
  }

  private read(taskId: string): Promise<TaskRecord | undefined> {
    return this.store.get<TaskRecord>(`task/${taskId}`).catch(() => undefined);
  }
}
