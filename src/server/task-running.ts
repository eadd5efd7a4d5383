/** A task this process runs, and how it waits for its client's answer to a question. */
import type { ElicitResult } from "@modelcontextprotocol/server";
import type { ParkedCall } from "./parked-call.js";
import type { TaskRecord } from "./task-record.js";

export interface Running {
  record: TaskRecord;
  call: ParkedCall;
  controller: AbortController;
  /** The key of the question waiting for its answer, and where the answer goes. */
  waiting?: { key: string; answer(result: ElicitResult): void };
  cancelled: boolean;
  questions: number;
}

/**
 * The task's next question's key, and its answer: given by `task.waiting.answer` (the client's `tasks/update`, here or
 * through another replica), rejected when the task ends, and, past `questionMs`, the call is abandoned and it rejects.
 */
export function awaitAnswer(task: Running, questionMs: number): { key: string; answered: Promise<ElicitResult> } {
  const key = `question-${++task.questions}`;
  const { controller } = task;
  const answered = new Promise<ElicitResult>((resolve, reject) => {
    const late = `the question was not answered within ${Math.round(questionMs / 1000)} s`;
    const timer = setTimeout(() => {
      task.call.abandon(late);
      reject(new Error(late));
    }, questionMs);
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
  return { key, answered };
}
