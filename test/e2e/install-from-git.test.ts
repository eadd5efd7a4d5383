/**
 * Installing from a git URL, as the README says: `git clone URL`, `npm ci`,
 * `npm run install-global`, into an empty prefix. The installed command is
 * a copy: it serves a real client after the clone is moved. The documented
 * upgrade (`git pull && npm ci && npm run install-global`) then installs
 * what upstream has since committed.
 */
import { spawnSync } from "node:child_process";
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/harness.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Runs a command as a person would in `cwd`, and fails the test with its output if it fails. */
function sh(command: string, args: string[], cwd: string): string {
  const ran = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 400_000 });
  expect(ran.status, `${command} ${args.join(" ")}\n${ran.stdout}\n${ran.stderr}`).toBe(0);
  return ran.stdout;
}

describe("an install from a git clone", () => {
  it("serves a real client from the installed copy after the clone moves, and upgrades with one command", async () => {
    const work = tempDir();
    // Upstream: this repository as committed. The user clones it by URL.
    const upstream = join(work, "upstream");
    sh("git", ["clone", "--quiet", "--no-hardlinks", ROOT, upstream], work);
    const clone = join(work, "metatools");
    sh("git", ["clone", "--quiet", `file://${upstream}`, clone], work);
    const prefix = join(work, "prefix");
    const offline = ["--prefer-offline", "--no-audit", "--no-fund"];
    sh("npm", ["ci", ...offline], clone);
    sh("npm", ["run", "install-global", "--", "--prefix", prefix, ...offline], clone);

    const moved = join(work, "elsewhere");
    renameSync(clone, moved);
    const command = join(prefix, "bin", "metatools");
    const project = join(work, "project");
    sh("mkdir", ["-p", project], work);
    writeFileSync(join(project, "metatools.json"), JSON.stringify({ mcpServers: {} }));
    const client = new Client({ name: "git-install-test", version: "1" });
    const env = { ...getDefaultEnvironment(), XDG_CACHE_HOME: join(work, "cache"), XDG_STATE_HOME: join(work, "state") };
    await client.connect(
      new StdioClientTransport({ command, args: ["serve", "--config", join(project, "metatools.json")], cwd: project, env, stderr: "ignore" }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "run_tool"]);
      const found = await client.callTool({ name: "search_tools", arguments: { query: "find where a function is defined" } });
      expect(JSON.parse((found.content as { text: string }[])[0]!.text).hits.map((h: { id: string }) => h.id)).toContain("code:symbols");
    } finally {
      await client.close();
    }

    // Upstream moves on; the user upgrades as the README says.
    sh("npm", ["version", "0.1.1-upgrade.0", "--no-git-tag-version"], upstream);
    sh("git", ["-c", "user.name=Upstream", "-c", "user.email=upstream@example.com", "commit", "--quiet", "-am", "a release"], upstream);
    sh("sh", ["-c", `git pull --quiet && npm ci ${offline.join(" ")} && npm run install-global -- --prefix '${prefix}' ${offline.join(" ")}`], moved);
    expect(sh(command, ["--version"], project).trim()).toBe("0.1.1-upgrade.0");
  }, 900_000);
});
