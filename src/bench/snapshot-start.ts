/**
 * Start with a warm snapshot: `metatools serve` over one backend that lists
 * `size` tools but needs 5 s to come up. One serve lists it and keeps the
 * snapshot; each timed one (the default config: hybrid, the built-in
 * embedder) is measured from spawn to the first search
 * answered with one of that backend's tools (still `connecting`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI_ENTRY, PACKAGE_ROOT } from "../util/package-root.js";
import { syntheticTools, toJsonl } from "./synthetic.js";

export interface SnapshotStartResult {
  tools: number;
  runs: number;
  /** Spawn to the first search that finds the slow backend's tools from the snapshot. */
  medianMs: number;
  /** Whether that search's hits were served before the backend was up (status `connecting`). */
  fromSnapshot: boolean;
}

const SLOW_BACKEND = join(PACKAGE_ROOT, "dist", "bench", "slow-backend.js");
const START_DELAY_MS = 5000;

export async function snapshotStart(size: number, dir: string, runs: number): Promise<SnapshotStartResult> {
  const tools = syntheticTools(size);
  const toolsFile = join(dir, `snapshot-${size}.jsonl`);
  writeFileSync(toolsFile, toJsonl(tools));
  const configFile = join(dir, `snapshot-${size}.json`);
  const backend = { command: process.execPath, args: [SLOW_BACKEND, toolsFile, String(START_DELAY_MS)] };
  writeFileSync(configFile, JSON.stringify({ mcpServers: { slow: backend }, metatools: { code: { enabled: false } } }));
  const cache = join(dir, "snapshot-cache");
  mkdirSync(cache, { recursive: true });
  const env = { ...getDefaultEnvironment(), XDG_CACHE_HOME: cache };
  // The last tool, asked for by its words as a person would write them ("create invoice 9999").
  const wanted = tools[size - 1]!;
  const query = wanted.name.replace(/_/g, " ");

  // Warm: serve until the backend is up and listed (a run waits for it), then close, which writes the snapshot.
  const warm = await open(configFile, env);
  await warm.callTool(
    { name: "run_tool", arguments: { tool_id: `slow:${tools[0]!.name}`, args: { [Object.keys(tools[0]!.inputSchema.properties)[0]!]: "x" } } },
    undefined,
    { timeout: 60_000 },
  );
  await warm.close();

  const times: number[] = [];
  let fromSnapshot = true;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const client = await open(configFile, env);
    const result = await client.callTool({ name: "search_tools", arguments: { query } });
    times.push(performance.now() - started);
    const body = JSON.parse((result.content as { text: string }[])[0]!.text) as { hits?: { id: string; status?: string }[] };
    const hit = body.hits?.find((h) => h.id === `slow:${wanted.name}`);
    if (!hit) throw new Error(`the first search did not find the snapshot's tools: ${JSON.stringify(body).slice(0, 300)}`);
    fromSnapshot &&= hit.status === "connecting";
    await client.close();
  }
  times.sort((a, b) => a - b);
  return { tools: size, runs, medianMs: times[Math.floor(times.length / 2)]!, fromSnapshot };
}

async function open(config: string, env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI_ENTRY, "serve", "--config", config, "--log-level", "error"], env, stderr: "ignore" }),
  );
  return client;
}
