/**
 * What a CLI search from the snapshot loads: metatools' own code and what
 * ranking needs, not the MCP SDK's client or server (their code and zod
 * schemas are most of the start-up cost), which only connecting and
 * serving need. A module-load hook lists every module the real command
 * loads.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

const HOOK = fileURLToPath(new URL("../fixtures/log-modules.mjs", import.meta.url));

/** The text of every file a `metatools` run loaded. */
function loadedBy(args: string[], dir: string): string[] {
  const log = join(dir, `modules-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, "");
  const ran = spawnSync(process.execPath, ["--import", HOOK, CLI, ...args], {
    cwd: dir,
    env: { ...process.env, LOG_MODULES_FILE: log, XDG_CACHE_HOME: join(dir, "cache") },
    encoding: "utf8",
  });
  expect(ran.status, ran.stderr).toBe(0);
  const urls = [
    ...new Set(
      readFileSync(log, "utf8")
        .split("\n")
        .filter((u) => u.startsWith("file:")),
    ),
  ];
  return urls.map((url) => readFileSync(fileURLToPath(url), "utf8"));
}

/** Class definitions only the SDK's client and server packages hold (as bundled: `var Name = class`, or as published). */
const CLIENT = /\b(StdioClientTransport = class|class StdioClientTransport)\b/;
const SERVER = /\b(McpServer = class|class McpServer)\b/;

describe("a CLI search from the snapshot", () => {
  it("loads neither the MCP client nor the MCP server code; a first search, which lists the server, loads the client", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
    // The first search starts the server to list it (and keeps the snapshot): that one needs the client.
    const first = loadedBy(["search", "add two numbers"], dir);
    expect(first.some((text) => CLIENT.test(text))).toBe(true);
    const fromSnapshot = loadedBy(["search", "add two numbers"], dir);
    expect(fromSnapshot.some((text) => CLIENT.test(text))).toBe(false);
    expect(fromSnapshot.some((text) => SERVER.test(text))).toBe(false);
  });
});
