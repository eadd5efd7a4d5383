/**
 * The tasks extension's methods on a server (`tasks/get`, `tasks/update`,
 * `tasks/cancel`, protocol revision 2026-07-28), over the board that keeps
 * the tasks (tasks.ts). Each answers only the caller the task belongs to;
 * any other id, another caller's included, is an unknown task.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { TaskBoard } from "./tasks.js";

/** Task ids are UUIDs; anything far longer is not one of ours. */
const taskId = z.string().min(1).max(200);
const byId = z.looseObject({ taskId });
const update = z.looseObject({ taskId });

export function serveTasks(server: Server, board: TaskBoard, owner: string): void {
  server.setRequestHandler("tasks/get", { params: byId }, async (params) => {
    const task = await board.get(params.taskId, owner);
    if (!task) throw unknown(params.taskId);
    return { ...task, resultType: "complete" };
  });
  // The SDK lifts `inputResponses` out of the params (as for a retried call) into the request's context.
  server.setRequestHandler("tasks/update", { params: update }, async (params, ctx) => {
    if (!(await board.update(params.taskId, owner, ctx.mcpReq.inputResponses ?? {}))) throw unknown(params.taskId);
    return { resultType: "complete" };
  });
  server.setRequestHandler("tasks/cancel", { params: byId }, async (params) => {
    if (!(await board.cancel(params.taskId, owner))) throw unknown(params.taskId);
    return { resultType: "complete" };
  });
}

function unknown(id: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `unknown task "${id.slice(0, 80)}": it never existed here, belongs to another caller, or was forgotten after its time to live; run the tool again`,
  );
}
