/**
 * A backend tool that runs only as a task (the everything server's
 * `simulate-research-query`, `execution.taskSupport: "required"`), run by a
 * client that knows nothing of tasks, through the built server: metatools
 * creates the task, waits for its result on the client's behalf, passes its
 * status messages on as progress and its question (an ambiguous topic) to
 * the client, and answers with an ordinary result. Without this the call
 * fails: the backend refuses it outside a task.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { servers, tempDir, testHomes } from "../helpers/harness.js";

let client: Client;
const asked: string[] = [];

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
  client = new Client({ name: "tasks", version: "1" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { interpretation: "snake" } };
  });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config],
      env: { ...getDefaultEnvironment(), ...testHomes() },
      stderr: "ignore",
    }),
  );
}, 30_000);

afterAll(() => client?.close());

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

describe("a backend tool that runs only as a task", () => {
  it("answers as an ordinary result, with the task's status messages as progress", async () => {
    const messages: string[] = [];
    const result = await client.callTool(
      { name: "run_tool", arguments: { tool_id: "everything:simulate-research-query", args: { topic: "tide pools" } } },
      undefined,
      { onprogress: ({ message }) => message && messages.push(message), timeout: 60_000 },
    );
    const body = JSON.parse(textOf(result)) as { ok?: boolean; result?: unknown };
    expect(body.ok).not.toBe(false);
    expect(JSON.stringify(body)).toContain("Research Report: tide pools");
    expect(messages.some((m) => m.includes("Gathering sources") || m.includes("Analyzing content"))).toBe(true);
  }, 60_000);

  it("passes the task's question to the client, and its answer back to the backend", async () => {
    const before = asked.length;
    const result = await client.callTool(
      { name: "run_tool", arguments: { tool_id: "everything:simulate-research-query", args: { topic: "python", ambiguous: true } } },
      undefined,
      { timeout: 60_000 },
    );
    expect(asked.length).toBe(before + 1);
    expect(asked.at(-1)).toMatch(/^\[everything\] .*multiple interpretations/);
    expect(textOf(result)).toContain("Research Report: python (snake)");
  }, 60_000);

  it("is cancelled with the call: the caller is not kept waiting", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const call = client
      .callTool({ name: "run_tool", arguments: { tool_id: "everything:simulate-research-query", args: { topic: "tides" } } }, undefined, {
        signal: controller.signal,
        timeout: 60_000,
      })
      .catch((error: unknown) => error);
    setTimeout(() => controller.abort(new Error("the user went away")), 300);
    expect(await call).toBeInstanceOf(Error);
    expect(Date.now() - started).toBeLessThan(3000);
  }, 30_000);
});
