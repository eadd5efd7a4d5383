/**
 * A backend tool that runs only as a task (a 2025-11-25 server's tool with
 * `execution.taskSupport: "required"`, such as the everything server's
 * research query), called for a client that knows nothing of tasks: the
 * call creates the task, metatools waits for its result on the client's
 * behalf (`tasks/result`, on whose stream the backend sends the questions
 * it has, which reach the calling client as any backend's question), and
 * reports the task's status messages as progress. When the call is
 * cancelled or its deadline passes, the task is cancelled (`tasks/cancel`):
 * the backend stops its work.
 */
import { CallToolResultSchema, CancelTaskResultSchema, CreateTaskResultSchema, GetTaskResultSchema } from "@modelcontextprotocol/core";
import type { Client } from "@modelcontextprotocol/client";
import type { CallOptions, ToolCallResult } from "./types.js";

/** How often the task's status is asked for its progress message, unless the backend says otherwise. */
const POLL_MS = 1000;
/** The fastest the backend may ask to be polled. */
const MIN_POLL_MS = 100;

/** True when `client`'s server runs tools as tasks (2025-11-25's tasks capability). */
export function runsToolTasks(client: Client): boolean {
  const tasks = (client.getServerCapabilities() as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks;
  return tasks?.requests?.tools?.call !== undefined;
}

export async function callAsTask(client: Client, name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
  const deadline = Date.now() + options.timeoutMs;
  const left = () => Math.max(1, deadline - Date.now());
  const created = await client.request(
    { method: "tools/call", params: { name, arguments: args, task: { ttl: options.timeoutMs } } } as never,
    CreateTaskResultSchema,
    { signal: options.signal, timeout: left() },
  );
  const { taskId } = created.task;
  const polling = new AbortController();
  const stop = () => polling.abort();
  options.signal?.addEventListener("abort", stop, { once: true });
  let step = 0;
  void (async () => {
    let every = Math.max(MIN_POLL_MS, created.task.pollInterval ?? POLL_MS);
    while (!polling.signal.aborted) {
      await new Promise((resolve) => setTimeout(resolve, every).unref());
      if (polling.signal.aborted) return;
      const got = await client
        .request({ method: "tasks/get", params: { taskId } } as never, GetTaskResultSchema, { signal: polling.signal, timeout: left() })
        .catch(() => undefined);
      if (!got || polling.signal.aborted) continue;
      every = Math.max(MIN_POLL_MS, got.pollInterval ?? every);
      if (got.statusMessage) options.onProgress?.({ progress: ++step, message: got.statusMessage });
    }
  })();
  try {
    return (await client.request({ method: "tasks/result", params: { taskId } } as never, CallToolResultSchema, {
      signal: options.signal,
      timeout: left(),
    })) as ToolCallResult;
  } catch (error) {
    // The caller went away or the deadline passed: the backend is told to stop the task's work.
    await client.request({ method: "tasks/cancel", params: { taskId } } as never, CancelTaskResultSchema, { timeout: 5000 }).catch(() => {});
    throw error;
  } finally {
    stop();
    options.signal?.removeEventListener("abort", stop);
  }
}
