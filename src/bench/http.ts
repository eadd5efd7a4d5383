/**
 * Load over Streamable HTTP: a real `metatools serve --http` child on
 * loopback, many concurrent SDK clients each making a mixed run of
 * search_tools, describe_tool and run_tool calls (the everything server's
 * `echo`). Counts errors, reports latency percentiles and throughput, and
 * compares the server's live heap (after a full GC) and open sessions after
 * the run with a baseline taken after a warm-up, to catch a session leak.
 * RSS is reported too; V8 keeps pages it has grown into, so it is no leak
 * signal.
 */
import { CLI_ENTRY } from "../util/package-root.js";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { everythingServer } from "./exec.js";
import { percentile } from "./measure.js";
import { errorMessage } from "../util/errors.js";

export interface HttpLoadResult {
  mode: "sessions" | "stateless";
  clients: number;
  callsPerClient: number;
  errors: number;
  firstError?: string;
  p50Ms: number;
  p99Ms: number;
  callsPerSecond: number;
  before: Health;
  after: Health;
}

interface Health {
  sessions: number;
  rssMb: number;
  heapMb: number;
}

const TOKEN = "bench-token-0123456789abcdef";
const QUERIES = ["echo a message", "add two numbers", "print environment variables", "long running operation", "sample from the model", "get a tiny image"];

export async function httpLoad(dir: string, options: { clients: number; calls: number; stateless: boolean }): Promise<HttpLoadResult> {
  const entry = everythingServer();
  if (!entry) throw new Error("the http benchmark needs @modelcontextprotocol/server-everything (npm install it, or run from the repository)");
  const config = join(dir, "http-bench.json");
  // The rate limit is lifted: this measures the server, not the limiter.
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: { command: process.execPath, args: [entry, "stdio"] } },
      metatools: { code: { enabled: false }, search: { embeddingCache: false }, http: { rateLimit: { perMinute: 10_000_000 } } },
    }),
  );
  const cli = CLI_ENTRY;
  // --expose-gc lets /healthz?gc=1 measure live memory after a full collection, so garbage is not mistaken for a leak.
  const child = spawn(process.execPath, ["--expose-gc", cli, "serve", "--http", "0", "--config", config, ...(options.stateless ? ["--stateless"] : [])], {
    env: { ...process.env, METATOOLS_TOKENS: TOKEN },
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stderr = "";
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d;
        const match = /serving MCP on (http:\/\/\S+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const health = async (): Promise<Health> => (await fetch(url.replace(/\/mcp$/, "/healthz?gc=1"))).json() as Promise<Health>;
    // Warm-up: the same mix, smaller, so the baseline includes what a first run allocates for good (JIT, pools, caches).
    await round(url, options.clients, Math.max(5, Math.floor(options.calls / 10)));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = await health();
    const started = performance.now();
    const { times, errors, firstError } = await round(url, options.clients, options.calls);
    const elapsed = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await health();
    times.sort((a, b) => a - b);
    return {
      mode: options.stateless ? "stateless" : "sessions",
      clients: options.clients,
      callsPerClient: options.calls,
      errors,
      ...(firstError ? { firstError } : {}),
      p50Ms: percentile(times, 50),
      p99Ms: percentile(times, 99),
      callsPerSecond: (times.length * 1000) / elapsed,
      before,
      after,
    };
  } finally {
    child.kill("SIGTERM");
  }
}

/** `clients` clients at once, each connecting, making `calls` mixed calls and ending its session. */
async function round(url: string, clients: number, calls: number): Promise<{ times: number[]; errors: number; firstError?: string }> {
  const times: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const fail = (message: string) => {
    errors++;
    firstError ??= message;
  };
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
      const client = new Client({ name: `bench-${c}`, version: "1.0.0" });
      try {
        await client.connect(transport);
        for (let i = 0; i < calls; i++) {
          const kind = (c + i) % 3;
          const [name, args] =
            kind === 0
              ? ["search_tools", { query: QUERIES[(c + i) % QUERIES.length] }]
              : kind === 1
                ? ["describe_tool", { tool_id: "everything:echo" }]
                : // bypass: every run reaches the backend, and the result cache does not grow with new arguments (that is not a leak).
                  ["run_tool", { tool_id: "everything:echo", args: { message: `client ${c} call ${i}` }, cache: "bypass" }];
          const start = performance.now();
          try {
            const result = await client.callTool({ name: name as string, arguments: args });
            times.push(performance.now() - start);
            if (result.isError) fail(`${name as string}: ${JSON.stringify(result.content).slice(0, 200)}`);
          } catch (error) {
            fail(`${name as string}: ${errorMessage(error)}`);
          }
        }
        await transport.terminateSession().catch(() => {});
      } catch (error) {
        fail(`connect: ${errorMessage(error)}`);
      } finally {
        await client.close().catch(() => {});
      }
    }),
  );
  return { times, errors, firstError };
}
