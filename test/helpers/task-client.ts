/**
 * A 2026-07-28 client that takes tasks: the SDK v2 client pinned to the new
 * era, driven by the public tasks extension's requester
 * (@modelcontextprotocol/ext-tasks), which sends task traffic itself
 * ("raw dispatch"): over HTTP as its own POSTs, over stdio through the SDK
 * client's transport.
 */
import { Client } from "@modelcontextprotocol/client";
import type { Transport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type JsonRpcResponse, type TaskEnabledSession, type WithTasksOptions } from "@modelcontextprotocol/ext-tasks/client";
import { answerJson, httpServe, MODERN, stdioServe } from "./modern.js";
import { TEST_TOKEN } from "./serve.js";

type Dispatch = (request: unknown, options?: { signal?: AbortSignal }) => Promise<JsonRpcResponse>;

export const FRAMING = {
  protocolVersion: MODERN,
  clientInfo: { name: "ext-tasks", version: "1" },
  clientCapabilities: { elicitation: { form: {} } },
};

/** One request of `{ method, params }` as a POST of its own, with the headers the era asks for; the answer as the requester reads it. */
export function httpDispatch(url: string, token = TEST_TOKEN): Dispatch {
  let id = 0;
  return async (request, options = {}) => {
    const { method, params } = request as { method: string; params?: Record<string, unknown> };
    const name = params?.name ?? params?.taskId;
    const response = await fetch(url, {
      method: "POST",
      signal: options.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
        "mcp-protocol-version": MODERN,
        "mcp-method": method,
        ...(typeof name === "string" ? { "mcp-name": name } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: `raw-${++id}`, method, params }),
    });
    return answerOf(answerJson(await response.text(), response.headers.get("content-type")));
  };
}

/** Requests sent on `transport` (already the SDK client's) under ids of their own; their answers are taken out before the client sees them. */
export function transportDispatch(transport: Transport): Dispatch {
  const waiting = new Map<string, (message: unknown) => void>();
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = (message as { id?: unknown }).id;
    const take = typeof id === "string" && !("method" in message) ? waiting.get(id) : undefined;
    if (take) {
      waiting.delete(id as string);
      take(message);
    } else deliver?.(message, extra);
  };
  let next = 0;
  return (request) => {
    const id = `raw-${++next}`;
    const answered = new Promise<JsonRpcResponse>((resolve) => waiting.set(id, (message) => resolve(answerOf(message))));
    void transport.send({ jsonrpc: "2.0", id, ...(request as { method: string }) });
    return answered;
  };
}

function answerOf(message: unknown): JsonRpcResponse {
  const { result, error } = message as { result?: Record<string, never>; error?: { code: number; message: string } };
  return error ? { kind: "error", error } : { kind: "result", result: result ?? {} };
}

export interface TaskClient {
  client: Client;
  session: TaskEnabledSession;
  close(): Promise<void>;
}

/** Connects to metatools (`url` over HTTP, or `config` served over stdio) and opens a task session on it. */
export async function connectTaskClient(
  where: { url: string; token?: string } | { config: string },
  options: Pick<WithTasksOptions, "onInputRequest"> = {},
): Promise<TaskClient> {
  const client = new Client({ name: "ext-tasks", version: "1" }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: FRAMING.clientCapabilities });
  const transport = "url" in where ? httpServe(where.url, where.token) : stdioServe(where.config);
  await client.connect(transport);
  const rawDispatch = "url" in where ? httpDispatch(where.url, where.token) : transportDispatch(transport);
  const session = createTaskSessionFromClient(client, {
    endpointId: "metatools",
    rawDispatch: rawDispatch as never,
    v2RequestFraming: FRAMING,
    ...options,
  });
  return {
    client,
    session,
    close: async () => {
      await session.close();
      await client.close();
    },
  };
}
