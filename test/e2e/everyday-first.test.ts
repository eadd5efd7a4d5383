/**
 * The first hour's everyday requests, through the built CLI over the public
 * filesystem and memory servers: the tool a person means comes first, and a
 * request naming a server that is down is told so (not pointed elsewhere).
 * The down server is npx reporting a package npm does not have
 * (test/fixtures/npm-e404.mjs): said by its first words, not npm's log
 * path, and not retried.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

const E404 = fileURLToPath(new URL("../fixtures/npm-e404.mjs", import.meta.url));

function project(): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, "metatools.json"),
    JSON.stringify({
      mcpServers: {
        files: servers.filesystem(dir),
        memory: servers.memory(join(dir, "memory.jsonl")),
        github: { command: process.execPath, args: [E404, "@modelcontextprotocol/server-github"] },
      },
      metatools: { code: { enabled: false } },
    }),
  );
  return dir;
}

async function search(
  dir: string,
  ...words: string[]
): Promise<{ hits: { id: string }[]; warning?: string; hint?: string; next?: unknown; unavailable?: Record<string, unknown>[] }> {
  const ran = await runCli(["search", ...words, "--json"], { cwd: dir });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

describe("the everyday tool first", () => {
  it("reads a file with read_text_file, scoped or not, and remembers with create_entities", async () => {
    const dir = project();
    expect((await search(dir, "read a file")).hits[0]!.id).toBe("files:read_text_file");
    expect((await search(dir, "read a file", "--namespace", "files")).hits[0]!.id).toBe("files:read_text_file");
    expect((await search(dir, "remember that Ada likes tea")).hits[0]!.id).toBe("memory:create_entities");
  }, 60_000);

  it("a request naming a server that is down says so, by npm's own first words, and is not pointed at another namespace", async () => {
    const dir = project();
    const body = await search(dir, "create a github issue");
    expect(body.warning).toMatch(/^The request names "github", whose backend is needs_config, so its tools are missing from these hits/);
    const github = body.unavailable!.find((u) => u.namespace === "github")!;
    expect(github).toMatchObject({ status: "needs_config", error: 'npm has no package "@modelcontextprotocol/server-github" (404 Not Found)' });
    expect(github.fix).toContain("mcpServers.github.args");
    // Not retried (no retry_at), and no local log path.
    expect(github.retry_at).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain("_logs");
    // The way on is the next page, not a scope to another server's namespace.
    expect(body.next).toMatchObject({ tool: "search_tools", arguments: { query: "create a github issue", offset: 5 } });
  }, 60_000);

  it("the CLI prints the map it warns of", async () => {
    const dir = project();
    const ran = await runCli(["search", "create a github issue"], { cwd: dir });
    expect(ran.stderr).toContain("map lists where the tool may be");
    expect(ran.stdout).toMatch(/Where the tool may be:\n {2}files: /);
  }, 60_000);
});
