/**
 * The server as clients reach it: `metatools serve` over stdio (desktop
 * clients), over Streamable HTTP with sessions, and stateless HTTP (replicas
 * behind a load balancer). The same suite runs against each.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../helpers/harness.js";
import { SERVE_KINDS, serveAndConnect, type Served } from "../helpers/serve.js";

describe.each(SERVE_KINDS)("metatools serve (%s)", (kind) => {
  let served: Served;

  beforeAll(async () => {
    const dir = tempDir();
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { everything: servers.everything(), missing: { command: "no-such-binary-for-metatools" } },
        metatools: { code: { enabled: false } },
      }),
    );
    served = await serveAndConnect(kind, config);
  }, 30_000);

  afterAll(() => served?.close());

  const text = async (tool: string, args: Record<string, unknown>) => {
    const result = await served.client.callTool({ name: tool, arguments: args });
    return { result, text: (result.content as { text: string }[])[0]!.text };
  };

  it("exposes exactly three tools", async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["describe_tool", "run_tool", "search_tools"]);
  });

  it("starts despite a backend whose command does not exist, and says which", async () => {
    const body = JSON.parse((await text("search_tools", { query: "echo" })).text);
    // Named by the instructions when it was up at the handshake, else by the first search (the handshake waits for no backend).
    expect(`${served.client.getInstructions()}\n${body.namespaces ?? ""}`).toMatch(/everything \(\d+\)/);
    expect(body.hits[0].id).toBe("everything:echo");
    expect(body.unavailable.map((u: { namespace: string }) => u.namespace)).toContain("missing");
    expect(served.stderr()).toContain("no-such-binary-for-metatools");
  });

  it("runs search → describe → run end to end", async () => {
    const search = JSON.parse((await text("search_tools", { query: "add two numbers" })).text);
    const id = search.hits[0].id;
    expect(id).toBe("everything:get-sum");
    const described = JSON.parse((await text("describe_tool", { tool_id: id })).text);
    expect(Object.keys(described.input_schema.properties)).toEqual(expect.arrayContaining(["a", "b"]));
    const run = await text("run_tool", { tool_id: id, args: { a: 2, b: 40 } });
    expect(run.result.isError).toBeFalsy();
    expect(run.text).toContain("42");
  });

  it("answers concurrent calls on one connection, each with its own result", async () => {
    const messages = Array.from({ length: 8 }, (_, i) => `message ${i} over ${kind}`);
    const results = await Promise.all(messages.map((message) => text("run_tool", { tool_id: "everything:echo", args: { message } })));
    results.forEach((r, i) => expect(r.text).toContain(messages[i]));
  });
});
