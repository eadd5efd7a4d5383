/**
 * Signing metatools in to the OAuth test world (test/helpers/oauth): a
 * config naming the world's protected servers, `metatools auth …` run as a
 * user runs it with the fake browser as $BROWSER, and `metatools serve`
 * kept running with a real MCP client, its log captured.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, runCli } from "./cli.js";
import { tempDir, testHomes } from "./harness.js";
import type { OAuthWorld } from "./oauth/world.js";

export const BROWSER = fileURLToPath(new URL("../fixtures/oauth/browser.mjs", import.meta.url));

export interface SignInSetup {
  dir: string;
  config: string;
  tokenFile: string;
  /** `metatools ARGS --config CONFIG`, with the fake browser; every output is kept for the leak check. */
  cli(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Everything metatools printed or answered so far. */
  seen: string[];
}

/** A config with `servers` (namespace → world server index, plus any oauth settings). */
export function signInSetup(world: OAuthWorld, servers: Record<string, { index?: number; oauth?: Record<string, unknown>; url?: string }>): SignInSetup {
  const dir = tempDir("metatools-oauth-");
  const config = join(dir, "metatools.json");
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, s]) => [
      name,
      { url: s.url ?? world.servers[s.index ?? 0]!.url, ...(s.oauth ? { oauth: s.oauth } : {}), connectTimeoutMs: 10_000 },
    ]),
  );
  writeFileSync(config, JSON.stringify({ mcpServers, metatools: { code: { enabled: false } } }));
  const seen: string[] = [];
  return {
    dir,
    config,
    tokenFile: join(dir, "metatools.tokens.json"),
    seen,
    async cli(args, env = {}) {
      const result = await runCli([...args, "--config", config], { env: { BROWSER, ...env } });
      seen.push(result.stdout, result.stderr);
      return result;
    },
  };
}

export function fileMode(file: string): number {
  return statSync(file).mode & 0o777;
}

export function tokenFile(setup: SignInSetup): {
  backends: Record<
    string,
    Record<string, unknown> & { expiresAt?: number; tokens?: { access_token: string; refresh_token?: string; scope?: string; expires_in?: number } }
  >;
} {
  return JSON.parse(readFileSync(setup.tokenFile, "utf8"));
}

export interface Serving {
  client: Client;
  stderr(): string;
  /** run_tool's reply, parsed. */
  run(tool: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  search(query: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** `metatools serve` on stdio with debug logs, a client connected. */
export async function serve(setup: SignInSetup): Promise<Serving> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  let stderr = "";
  const env = { ...getDefaultEnvironment(), ...testHomes() };
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "serve", "--config", setup.config, "--log-level", "debug"],
    env,
    stderr: "pipe",
  });
  transport.stderr?.on("data", (d: Buffer) => (stderr += d));
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text: string }[]).map((c) => c.text).join("\n");
    setup.seen.push(JSON.stringify(result));
    return JSON.parse(text) as Record<string, unknown>;
  };
  return {
    client,
    stderr: () => stderr,
    run: (tool, args = {}) => call("run_tool", { tool_id: tool, args }),
    search: (query) => call("search_tools", { query }),
    close: async () => {
      await client.close();
      setup.seen.push(stderr);
    },
  };
}
