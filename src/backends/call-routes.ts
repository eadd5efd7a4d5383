/**
 * The ways a tool call reaches a backend, by what the backend is and the
 * tool needs: a 2025-11-25 tool that runs only as a task is waited for on
 * the caller's behalf (tasks.ts); a 2026-07-28 backend that takes tasks is
 * called beside the SDK client, which cannot read a task (modern-tasks.ts);
 * every other call is the SDK client's own request.
 */
import type { Client } from "@modelcontextprotocol/client";
import { callModern, type ModernCaller } from "./modern-tasks.js";
import { callAsTask, runsToolTasks } from "./tasks.js";
import type { CallOptions, ToolCallResult } from "./types.js";

export interface CallRoute {
  /** The tool runs only as a task (2025-11-25's `execution.taskSupport: "required"`). */
  taskOnly: boolean;
  /** Set when the backend speaks 2026-07-28 and takes tasks. */
  modern: ModernCaller | undefined;
}

export async function sendCall(client: Client, route: CallRoute, name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
  if (route.taskOnly && runsToolTasks(client)) return await callAsTask(client, name, args, options);
  if (route.modern) return await callModern(route.modern, name, args, options);
  // A raw request, not client.callTool: output validation is the executor's job, with its own error shape.
  // On a 2026-07-28 server a question comes as an `input_required` result: the SDK asks it through the
  // elicitation/sampling handlers (so the calling client answers it, as a 2025 server's request) and retries.
  return (await client.request(
    { method: "tools/call", params: { name, arguments: args } },
    {
      signal: options.signal,
      timeout: options.timeoutMs,
      // Progress restarts the timeout, but never past timeoutMs in all.
      resetTimeoutOnProgress: true,
      maxTotalTimeout: options.timeoutMs,
      ...(options.onProgress ? { onprogress: ({ progress, total, message }) => options.onProgress!({ progress, total, message }) } : {}),
    },
  )) as ToolCallResult;
}
