/** JSON replies and refusals, as every HTTP endpoint answers. */
import type { ServerResponse } from "node:http";
import type { Refusal } from "./guard.js";

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers }).end(`${JSON.stringify(body)}\n`);
}

/**
 * A refusal as a JSON-RPC error body, as the SDK's own refusals are, so MCP
 * clients show the message. The connection closes after it: a refused
 * request's body is not read, and must not be.
 */
export function refuse(res: ServerResponse, refusal: Refusal): void {
  json(
    res,
    refusal.status,
    { jsonrpc: "2.0", error: { code: refusal.code ?? -32000, message: refusal.message }, id: refusal.id ?? null },
    { ...refusal.headers, Connection: "close" },
  );
}
