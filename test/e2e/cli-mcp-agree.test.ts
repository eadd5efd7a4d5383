/**
 * The CLI and MCP say the same of a tool that does not exist: the CLI reads
 * the snapshot without starting the backend, MCP asks the running one; both
 * answer unknown_tool with the same words and suggestions.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "./../helpers/cli.js";
import { openSession, servers, tempDir } from "./../helpers/harness.js";

it("describe of an id the backend does not have: unknown_tool from the snapshot (CLI) as from the running backend (MCP)", async () => {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  const settings = { mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } };
  writeFileSync(config, JSON.stringify(settings));
  // The first command starts the backend and keeps its snapshot; the next ones read it.
  expect((await runCli(["search", "echo", "--config", config, "--refresh"], { cwd: dir })).code).toBe(0);
  const session = await openSession(settings, { file: config });
  try {
    for (const id of ["everything:nope", "everything:ecko"]) {
      const cli = JSON.parse((await runCli(["describe", id, "--config", config, "--json"], { cwd: dir })).stdout) as { error: unknown; hint?: string };
      const mcp = (await session.call("describe_tool", { tool_id: id })) as { error: unknown; hint?: string };
      expect(cli.error).toEqual(mcp.error);
      expect(cli.error).toMatchObject({ code: "unknown_tool" });
    }
  } finally {
    await session.close();
  }
}, 60_000);
