/**
 * A backend's protocol era is asked once: the first start of a 2025
 * server sends `server/discover` and then `initialize`; a later command,
 * which knows the era from the snapshot of the server's last listing, sends
 * `initialize` at once (a legacy server that stays silent on the question
 * would otherwise cost seconds at every start). Through the built CLI and a
 * fixture server that logs each request's method.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";

const SERVER = fileURLToPath(new URL("../fixtures/method-log-server.mjs", import.meta.url));

describe("a 2025 backend's era", () => {
  it("is asked at its first start, and known from the snapshot at the next", async () => {
    const dir = tempDir();
    const log = join(dir, "methods.log");
    const config = join(dir, "metatools.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { old: { command: process.execPath, args: [SERVER], env: { METHOD_LOG: log } } }, metatools: { code: { enabled: false } } }),
    );
    const methods = () => readFileSync(log, "utf8").split("\n").filter(Boolean);

    const first = await runCli(["run", "old:ping_me", "--config", config]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("pong");
    const firstStart = methods();
    expect(firstStart.slice(0, 2)).toEqual(["server/discover", "initialize"]);

    const second = await runCli(["run", "old:ping_me", "--config", config]);
    expect(second.code, second.stderr).toBe(0);
    const secondStart = methods().slice(firstStart.length);
    expect(secondStart[0]).toBe("initialize");
    expect(secondStart).not.toContain("server/discover");
  }, 60_000);
});
