/**
 * Test harness: the real app behind the real MCP server, reached by a real
 * MCP client over an in-memory transport pair.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { BUILTIN_CATALOG_DIR, createMetatools, type Metatools } from "../../src/app.js";
import { syntheticTools, toJsonl } from "../../src/bench/synthetic.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigFile } from "../../src/config/schema.js";
import type { Telemetry } from "../../src/observe/telemetry.js";
import { createSessionServer } from "../../src/serving.js";
import { tempDir } from "./temp-dir.js";

const require = createRequire(import.meta.url);

/** `node <entry>` command lines for the public MCP servers installed as dev dependencies. */
export const servers = {
  everything: () => ({ command: process.execPath, args: [require.resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"] }),
  filesystem: (dir: string) => ({ command: process.execPath, args: [require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"), dir] }),
  /** The public sequential-thinking server. */
  sequentialThinking: () => ({ command: process.execPath, args: [require.resolve("@modelcontextprotocol/server-sequential-thinking/dist/index.js")] }),
  /** The public memory server, keeping its knowledge graph in `file`. */
  memory: (file: string) => ({
    command: process.execPath,
    args: [require.resolve("@modelcontextprotocol/server-memory/dist/index.js")],
    env: { MEMORY_FILE_PATH: file },
  }),
  /** The executor fixture (test/fixtures/exec-server.mjs); every call it receives is appended to `callLog`. */
  exec: (callLog: string) => ({
    command: process.execPath,
    args: [fileURLToPath(new URL("../fixtures/exec-server.mjs", import.meta.url))],
    env: { CALL_LOG: callLog },
  }),
  /**
   * A modern-only backend (protocol 2026-07-28, test/fixtures/modern-server.mjs) over stdio: it refuses `initialize`.
   * Its `slow` tool appends a line to `abortMarker` when its call is cancelled. Over HTTP: startModernHttpBackend.
   */
  modern: (abortMarker?: string) => ({
    command: process.execPath,
    args: [MODERN_SERVER, "stdio"],
    ...(abortMarker ? { env: { ABORT_MARKER: abortMarker } } : {}),
  }),
  /** A backend that tries tool poisoning (test/fixtures/poisoned-server.mjs); `translate` describes itself as told. */
  poisoned: (translateDescription?: string) => ({
    command: process.execPath,
    args: [fileURLToPath(new URL("../fixtures/poisoned-server.mjs", import.meta.url))],
    ...(translateDescription ? { env: { TRANSLATE_DESCRIPTION: translateDescription } } : {}),
  }),
};

const MODERN_SERVER = fileURLToPath(new URL("../fixtures/modern-server.mjs", import.meta.url));

/** The modern-only backend (servers.modern) serving Streamable HTTP on a free port of 127.0.0.1, until close(). */
export async function startModernHttpBackend(abortMarker?: string): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [MODERN_SERVER, "http"], {
    env: { ...process.env, ...(abortMarker ? { ABORT_MARKER: abortMarker } : {}) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the modern HTTP backend exited (${code}) before listening: ${out}`)));
  });
  return {
    url,
    async close() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The tool names a call log holds, in order. */
export function loggedCalls(callLog: string): string[] {
  return existsSync(callLog) ? readFileSync(callLog, "utf8").split("\n").filter(Boolean) : [];
}

/** Every folder tempDir makes is removed when its test file's tests end (test/helpers/cleanup.ts). */
export { madeDirs, tempDir } from "./temp-dir.js";

export interface Session {
  app: Metatools;
  client: Client;
  /** Calls a meta-tool and parses its JSON body. */
  call(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  /** The raw MCP result, for byte counts and isError. */
  raw(name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

export async function openSession(
  config: ConfigFile,
  options: { builtinCatalog?: boolean; file?: string; telemetry?: Telemetry; breakerMs?: number } = {},
): Promise<Session> {
  const resolved = parseConfig(config, {
    file: options.file ?? join(tempDir(), "metatools.json"),
    builtinCatalogDir: options.builtinCatalog === false ? undefined : BUILTIN_CATALOG_DIR,
  });
  const app = createMetatools(resolved, { backoffMs: [200, 400], breakerMs: options.breakerMs, telemetry: options.telemetry });
  await app.start();
  const server = createSessionServer(app);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  const received = new Map<string, { tool: string; arguments: Record<string, unknown> }>();
  const raw = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const content = result.content as { type: string; text: string }[];
    const text = content[0]!.text;
    const next = parseNext(text);
    if (next) received.set(JSON.stringify(next), next);
    return { text, isError: result.isError === true };
  };
  return {
    app,
    client,
    raw,
    async call(name, args) {
      return JSON.parse((await raw(name, args)).text);
    },
    async close() {
      await followEveryNext(client, app, received);
      await client.close();
      await server.close();
      await app.close();
    },
  };
}

function parseNext(text: string): { tool: string; arguments: Record<string, unknown> } | undefined {
  try {
    const next = (JSON.parse(text) as { next?: { tool: string; arguments: Record<string, unknown> } }).next;
    return next && typeof next.tool === "string" ? next : undefined;
  } catch {
    return undefined;
  }
}

/** Failures a `next` call must never meet: it was given as a call that can run as written. */
const DEAD_ENDS = ["invalid_args", "unknown_tool", "not_runnable", "unknown_namespace"];

/**
 * Every `next` any reply of the session carried, executed as written before
 * the session closes: none may end in a dead end. run_tool calls are run
 * only for read-only and built-in tools (the others may change state, or be
 * slow by design, such as a timeout's retry); their arguments are still
 * validated against the tool's schema.
 */
async function followEveryNext(client: Client, app: Metatools, received: Map<string, { tool: string; arguments: Record<string, unknown> }>): Promise<void> {
  for (const next of received.values()) {
    if (next.tool === "run_tool") {
      // The same call again once its backend is back (it failed, and is retried): it cannot be followed while it is down.
      const namespace = String(next.arguments.tool_id).split(":")[0]!;
      const down = app.backends.state(namespace);
      if (down && down.status !== "ready" && !app.registry.get(String(next.arguments.tool_id))) continue;
      const record = app.registry.get(String(next.arguments.tool_id));
      if (!record) throw new Error(`a next call names a tool that does not exist: ${JSON.stringify(next)}`);
      const kind = app.backends.state(record.namespace)?.kind;
      if (!record.annotations.readOnlyHint && kind !== "builtin") continue;
      if (app.backends.state(record.namespace)?.status !== "ready") continue;
    }
    const result = await client.callTool({ name: next.tool, arguments: next.arguments });
    const body = JSON.parse((result.content as { text: string }[])[0]!.text) as { ok?: boolean; error?: { code?: string } };
    if (body.ok === false && DEAD_ENDS.includes(body.error?.code ?? ""))
      throw new Error(`a next call failed as written (${body.error?.code}): ${JSON.stringify(next)} → ${JSON.stringify(body).slice(0, 400)}`);
  }
}

/** Writes a tools.jsonl of `n` synthetic tools (the benchmark's generator) into `dir`. */
export function writeSyntheticTools(dir: string, n: number, seed = 1): string {
  const file = join(dir, "tools.jsonl");
  writeFileSync(file, toJsonl(syntheticTools(n, seed)));
  return file;
}

/** The test run's cache and state folders (test/helpers/cache-home.ts), for a child given a minimal environment: never the user's own. */
export function testHomes(): Record<string, string> {
  const homes: Record<string, string> = {};
  for (const name of ["XDG_CACHE_HOME", "XDG_STATE_HOME"]) if (process.env[name]) homes[name] = process.env[name]!;
  return homes;
}
