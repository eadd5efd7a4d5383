/**
 * `metatools doctor` on backends configured twice: each copy adds the same
 * tools, so search lists every one twice. One problem per server, however
 * the copies are spelled; look-alikes that differ are left alone.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

function config(dir: string): string {
  const file = join(dir, "metatools.json");
  const everything = servers.everything();
  // Nothing listens on port 1: the remote ones fail at once, which does not make them different servers.
  const url = "http://127.0.0.1:1/mcp";
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        everything,
        "everything-2": { type: "stdio", ...everything, env: {} },
        traced: { ...everything, env: { TRACE: "1" } },
        remote: { url, headers: { "X-Team": "search" } },
        "remote-copy": { type: "http", url, headers: { "x-team": "search" } },
        "remote-sse": { type: "sse", url, headers: { "X-Team": "search" } },
      },
      metatools: { code: { enabled: false } },
    }),
  );
  return file;
}

describe("metatools doctor: the same server twice", () => {
  it("is one problem per server, naming the copies, in the JSON and the text", async () => {
    const dir = tempDir();
    const file = config(dir);
    const json = await runCli(["doctor", "--json", "--config", file]);
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as { problems: { subject: string; problem: string; fix: string }[] };
    const same = report.problems.filter((p) => p.problem.includes("the same server"));
    expect(same).toEqual([
      {
        subject: "everything-2",
        problem: "everything and everything-2 are the same server: duplicate tools in search",
        fix: `remove one from "mcpServers" in ${file}`,
      },
      {
        subject: "remote-copy",
        problem: "remote and remote-copy are the same server: duplicate tools in search",
        fix: `remove one from "mcpServers" in ${file}`,
      },
    ]);

    const text = await runCli(["doctor", "--config", file]);
    expect(text.stdout).toContain("✗ everything-2: everything and everything-2 are the same server: duplicate tools in search");
    expect(text.stdout).toContain(`→ remove one from "mcpServers" in ${file}`);
    expect(text.stdout).not.toMatch(/traced.*same server|remote-sse.*same server/);
  });
});
