/**
 * The tasks extension's methods on a server (`tasks/get`, `tasks/update`,
 * `tasks/cancel`, protocol revision 2026-07-28), over the board that keeps
 * the tasks (tasks.ts). Each answers only the caller the task belongs to;
 * any other id, another caller's included, is an unknown task.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { TaskBoard, TaskCaller, TaskGone } from "./tasks.js";

/** Task ids are UUIDs; anything far longer is not one of ours. */
const taskId = z.string().min(1).max(200);
const byId = z.looseObject({ taskId });
const update = z.looseObject({ taskId });

export function serveTasks(server: Server, board: TaskBoard, who: TaskCaller): void {
  server.setRequestHandler("tasks/get", { params: byId }, async (params) => {
    const task = await board.get(params.taskId, who);
    if (typeof task === "string") throw gone(params.taskId, task);
    return { ...task, resultType: "complete" };
  });
  // The SDK lifts `inputResponses` out of the params (as for a retried call) into the request's context.
  server.setRequestHandler("tasks/update", { params: update }, async (params, ctx) => {
    const done = await board.update(params.taskId, who, ctx.mcpReq.inputResponses ?? {});
    if (done !== true) throw gone(params.taskId, done);
    return { resultType: "complete" };
  });
  server.setRequestHandler("tasks/cancel", { params: byId }, async (params) => {
    const done = await board.cancel(params.taskId, who);
    if (done !== true) throw gone(params.taskId, done);
    return { resultType: "complete" };
  });
}

function gone(id: string, why: TaskGone): ProtocolError {
  const task = `task "${id.slice(0, 80)}"`;
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    why === "forgotten"
      ? `${task} was forgotten to make room for your later tasks (each caller keeps at most metatools.serve.taskBytesPerCaller of task records, its oldest going first); run the tool again, and read a task's result before starting many more`
      : `unknown ${task}: it never existed here, belongs to another caller, or was forgotten after its time to live; run the tool again`,
  );
}
