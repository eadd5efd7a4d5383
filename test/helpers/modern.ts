/**
 * Talking to metatools as a 2026-07-28 client: raw HTTP requests with the
 * envelope in `_meta` and the method (and name) in the headers, and the
 * SDK v2 client's transports to the built server (stdio) or an HTTP child.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI } from "./cli.js";
import { servers, tempDir, testHomes } from "./harness.js";
import { startHttp, TEST_TOKEN, type HttpChild } from "./serve.js";

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
  return { status: response.status, body: answerJson(await response.text(), response.headers.get("content-type")) as Record<string, unknown> };
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

/** metatools over HTTP with both eras behind it: the everything server (2025) and the modern fixture, plus `more` servers and `settings`. */
export interface EraServer {
  server: HttpChild;
  config: string;
  /** Where the modern fixture notes each call (or task) it saw cancelled. */
  aborted: string;
  /** Lines noted there so far. */
  abortedLines(): number;
}

export async function startEraServer(
  options: { more?: (dir: string) => Record<string, unknown>; settings?: Record<string, unknown> } = {},
): Promise<EraServer> {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  const aborted = join(dir, "aborted.log");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { ...options.more?.(dir), everything: servers.everything(), modern: servers.modern(aborted) },
      metatools: { code: { enabled: false }, ...options.settings },
    }),
  );
  const server = await startHttp(["--config", config]);
  return {
    server,
    config,
    aborted,
    abortedLines: () => (existsSync(aborted) ? readFileSync(aborted, "utf8").split("\n").filter(Boolean).length : 0),
  };
}

/** The JSON of an answer read as text: the body itself, or a stream's last `data:` line. */
export function answerJson(text: string, contentType: string | null): unknown {
  const json = contentType?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .at(-1)!
        .slice(6)
    : text;
  return JSON.parse(json);
}
