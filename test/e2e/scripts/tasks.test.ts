/**
 * The benchmark's tasks (src/bench/scripts/tasks.ts) through `serve`, over
 * stdio and over Streamable HTTP, with the public filesystem, memory and
 * everything servers: each done by one program and step by step, both
 * answers the one its files make. The server's instructions name
 * run_program, and search finds it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCRIPT_TASKS, type MetaCall } from "../../../src/bench/scripts/tasks.js";
import { servers, tempDir } from "../../helpers/harness.js";
import { serveAndConnect, type Served } from "../../helpers/serve.js";

type Reply = { content: { type: string; text: string }[] };

describe.each(["stdio", "http"] as const)("programs through serve over %s", (kind) => {
  let served: Served;
  const dir = tempDir();
  const setUps = SCRIPT_TASKS.map((task) => task.setUp(dir));
  const call: MetaCall = async (tool, args) => {
    const reply = (await served.client.callTool({ name: tool, arguments: args })) as Reply;
    return JSON.parse(reply.content[0]!.text) as Record<string, unknown>;
  };

  beforeAll(async () => {
    const config = join(dir, "metatools.json");
    const mcpServers = { files: servers.filesystem(dir), memory: servers.memory(join(dir, "memory.jsonl")), everything: servers.everything() };
    writeFileSync(config, JSON.stringify({ mcpServers, metatools: { code: { enabled: false } } }));
    served = await serveAndConnect(kind, config);
  }, 60_000);
  afterAll(() => served?.close());

  it("names run_program in its instructions, and search_tools finds it", async () => {
    expect(served.client.getInstructions()).toContain("many calls in one turn: metatools:run_program");
    const found = await call("search_tools", { query: "run a program that makes many tool calls at once" });
    expect((found.hits as { id: string }[]).slice(0, 3).map((h) => h.id)).toContain("metatools:run_program");
  });

  it.each(SCRIPT_TASKS.map((task, i) => [task.name, i] as const))(
    "%s: one program, and step by step, give the task's answer",
    async (_, i) => {
      const task = SCRIPT_TASKS[i]!;
      const { input, answer } = setUps[i]!;
      const ran = await call("run_tool", { tool_id: "metatools:run_program", args: { code: task.program, input } });
      expect(ran.ok, JSON.stringify(ran)).toBe(true);
      const { result, program } = ran.structured as { result: unknown; program: { trace: { ok: boolean }[] } };
      expect(result).toEqual(answer);
      expect(program.trace.reduce((sum, t) => sum + ((t as { n?: number }).n ?? 1), 0)).toBeGreaterThanOrEqual(3);
      expect(program.trace.every((t) => t.ok)).toBe(true);
      expect(await task.steps(call, input)).toEqual(answer);
    },
    60_000,
  );
});
