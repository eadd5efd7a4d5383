/**
 * `metatools serve` in a child process, reached the way clients reach it:
 * over stdio, or over Streamable HTTP (with sessions or stateless), with a
 * real SDK client. The same tests run against each.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI } from "./cli.js";
import { eventually } from "./eventually.js";

export type ServeKind = "stdio" | "http" | "http-stateless";
export const SERVE_KINDS: readonly ServeKind[] = ["stdio", "http", "http-stateless"];

/** The token the HTTP servers started here accept. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

export interface Served {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface HttpChild {
  /** The /mcp URL, with the port the server picked. */
  url: string;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `metatools serve --http 0 …` and waits for the URL it prints. */
export async function startHttp(args: string[], env: NodeJS.ProcessEnv = {}): Promise<HttpChild> {
  const child = spawn(process.execPath, [CLI, "serve", "--http", "0", ...args], {
    env: { ...process.env, METATOOLS_TOKENS: TEST_TOKEN, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "serving MCP on" line within 20 s; stderr:\n${stderr}`)), 20_000);
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d;
      const match = /serving MCP on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening; stderr:\n${stderr}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url,
    child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/**
 * Polls `/readyz` (anonymously: it says `{ ready }` only) until it answers
 * 200 or `ms` pass, and returns every answer on the way. Serving does not
 * wait for the backends, so a test that needs them settled waits here.
 */
export async function untilReady(url: string, ms = 20_000): Promise<{ status: number; body: unknown }[]> {
  const readyz = url.replace(/\/mcp$/, "/readyz");
  const seen: { status: number; body: unknown }[] = [];
  const ask = async () => {
    const response = await fetch(readyz);
    seen.push({ status: response.status, body: await response.json() });
    return response.status;
  };
  await eventually(ask, (status) => status === 200, ms);
  return seen;
}

/** A client transport sending `token` (none when null). */
export function httpClientTransport(url: string, token: string | null = TEST_TOKEN): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {});
}

/** Serves a config file and connects a client to it. */
export async function serveAndConnect(kind: ServeKind, config: string): Promise<Served> {
  const client = new Client({ name: `${kind}-test`, version: "1.0.0" });
  if (kind === "stdio") {
    let stderr = "";
    // The SDK's minimal environment, and the test run's cache folder (test/helpers/cache-home.ts), not the user's.
    const env = {
      ...getDefaultEnvironment(),
      ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
      ...(process.env.XDG_STATE_HOME ? { XDG_STATE_HOME: process.env.XDG_STATE_HOME } : {}),
    };
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config], env, stderr: "pipe" });
    transport.stderr?.on("data", (d: Buffer) => (stderr += d));
    await client.connect(transport);
    return { client, stderr: () => stderr, close: () => client.close() };
  }
  const server = await startHttp(["--config", config, ...(kind === "http-stateless" ? ["--stateless"] : [])]);
  const transport = httpClientTransport(server.url);
  await client.connect(transport);
  return {
    client,
    stderr: server.stderr,
    close: async () => {
      if (kind === "http") await transport.terminateSession().catch(() => {});
      await client.close();
      await server.stop();
    },
  };
}
