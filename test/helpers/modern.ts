/**
 * Talking to metatools as a 2026-07-28 client: raw HTTP requests with the
 * envelope in `_meta` and the method (and name) in the headers, and the
 * SDK v2 client's transports to the built server (stdio) or an HTTP child.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI } from "./cli.js";
import { testHomes } from "./harness.js";
import { TEST_TOKEN } from "./serve.js";

export const MODERN = "2026-07-28";

/** A request's `_meta` envelope, declaring `capabilities`. */
export function envelope(capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  };
}

export interface ModernPost {
  token?: string;
  /** Overrides the envelope (default: one declaring no capability). */
  meta?: Record<string, unknown>;
  /** Added to (or replacing) the headers made from the method and name. */
  headers?: Record<string, string>;
}

/** One JSON-RPC request of the 2026-07-28 era to `url`; a streamed answer (SSE) is read from its last data line. */
export async function postModern(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: ModernPost = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const name: Record<string, string> = typeof params.name === "string" ? { "mcp-name": params.name } : {};
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${options.token ?? TEST_TOKEN}`,
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...name,
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: options.meta ?? envelope() } }),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .at(-1)!
        .slice(6)
    : text;
  return { status: response.status, body: JSON.parse(json) as Record<string, unknown> };
}

/** `metatools serve --config config` on stdio, for an SDK v2 client. */
export function stdioServe(config: string): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", "--config", config],
    env: { ...getDefaultEnvironment(), ...testHomes() },
    stderr: "ignore",
  });
}

/** An SDK v2 client's transport to an HTTP child, with `token`. */
export function httpServe(url: string, token = TEST_TOKEN): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
}
