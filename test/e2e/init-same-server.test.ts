/**
 * `metatools init` over entries that are one server written several ways
 * (as `claude mcp add`, Claude Desktop and Cursor write them), and its dry
 * run, which must tell what the real run tells.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

interface InitJson {
  dryRun?: boolean;
  file: string;
  servers: Record<string, Record<string, unknown>>;
  notes: string[];
  literalSecrets: string[];
}

/** Three client files in a fresh folder; the same servers in different forms, and two look-alikes that are not the same. */
function clientFiles(): { dir: string; files: string[]; env: NodeJS.ProcessEnv } {
  const dir = realpathSync(tempDir("metatools-init-forms-"));
  const everything = servers.everything();
  const github = { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" };
  const files = ["desktop.json", "code.json", "cursor.json"].map((name) => join(dir, name));
  const write = (file: string, mcpServers: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ mcpServers }));
  write(files[0]!, {
    everything,
    gh: { command: "npx", args: ["-y", "@modelcontextprotocol/server-github"], env: github },
    remote: { url: "https://MCP.example.com/mcp", headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } },
    flags: { command: "npx", args: ["-y", "flag-mcp"] },
    plain: { command: "plain-mcp" },
  });
  // Claude Code's forms: `"type": "stdio"` and `"env": {}` on every entry, `"args": []`.
  write(files[1]!, {
    everything: { type: "stdio", ...everything, env: {} },
    gh: { type: "stdio", command: "npx", args: ["@modelcontextprotocol/server-github"], env: github, disabled: false },
    remote: { type: "http", url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer ${REMOTE_TOKEN}" } },
    plain: { type: "stdio", command: "plain-mcp", args: [], env: {} },
  });
  write(files[2]!, {
    // Another name for gh, with npx's long flag: still the same server.
    github: { command: "npx", args: ["--yes", "@modelcontextprotocol/server-github"], env: github },
    // Not the same: a different environment, and `--yes` given to the package rather than to npx.
    everything: { ...everything, env: { TRACE: "1" } },
    flags: { command: "npx", args: ["flag-mcp", "--yes"] },
  });
  return { dir, files, env: { GITHUB_TOKEN: "", REMOTE_TOKEN: "" } };
}

const from = (files: string[]) => files.flatMap((file) => ["--from", file]);

describe("metatools init: one server written several ways", () => {
  it("merges entries that differ only in form into the first one's name, and says so", async () => {
    const { dir, files, env } = clientFiles();
    const { code, stdout, stderr } = await runCli(["init", "--json", ...from(files)], { cwd: dir, env });
    expect(code, stderr).toBe(0);
    const result = JSON.parse(stdout) as InitJson;
    expect(Object.keys(result.servers).sort()).toEqual(["everything", "everything-2", "flags", "flags-2", "gh", "plain", "remote"]);
    // The first entry is kept as it was written.
    expect(result.servers.everything).toEqual(servers.everything());
    expect(result.servers.gh).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" },
    });
    expect(result.servers["everything-2"]).toMatchObject({ env: { TRACE: "1" } });
    expect(result.servers["flags-2"]).toEqual({ command: "npx", args: ["flag-mcp", "--yes"] });
    const notes = result.notes.join("\n");
    for (const [name, file, kept] of [
      ["everything", "code.json", "everything"],
      ["gh", "code.json", "gh"],
      ["remote", "code.json", "remote"],
      ["plain", "code.json", "plain"],
      ["github", "cursor.json", "gh"],
    ]) {
      expect(notes).toContain(`${name} (${join(dir, file!)}) is the same server as "${kept}": merged into it`);
    }
    expect(notes).not.toMatch(/(everything|flags) \(.*cursor\.json\) is the same server/);
    // What is written is what the JSON says.
    expect(JSON.parse(readFileSync(result.file, "utf8")).mcpServers).toEqual(result.servers);
  });

  it("--dry-run tells the same notes as the real run, as text and as JSON, and writes nothing", async () => {
    const { dir, files, env } = clientFiles();
    const preview = join(dir, "preview.json");
    const real = JSON.parse((await runCli(["init", "--json", "--out", join(dir, "real.json"), ...from(files)], { cwd: dir, env })).stdout) as InitJson;
    expect(real.notes.length).toBeGreaterThan(4);

    const json = await runCli(["init", "--dry-run", "--json", "--out", preview, ...from(files)], { cwd: dir, env });
    expect(json.code, json.stderr).toBe(0);
    const dry = JSON.parse(json.stdout) as InitJson;
    expect(dry).toMatchObject({ dryRun: true, file: preview, servers: real.servers, notes: real.notes });

    const text = await runCli(["init", "--dry-run", "--out", preview, ...from(files)], { cwd: dir, env });
    expect(text.code, text.stderr).toBe(0);
    // stdout stays the file as it would be written, so it can be redirected…
    expect(JSON.parse(text.stdout)).toEqual({ mcpServers: real.servers });
    // …and every note the real run prints is told on stderr, in the same words.
    const told = text.stderr.split("\n").filter((line) => line.startsWith("  note: "));
    expect(told).toEqual(real.notes.map((note) => `  note: ${note}`));
    // Servers whose variables are not set here are named, with what to set; the others start without them.
    expect(text.stderr).toMatch(/ gh will not start until GITHUB_TOKEN is set in the environment metatools runs in \(not set here\)\n/);
    expect(text.stderr).toMatch(/ remote will not start until REMOTE_TOKEN is set in the environment metatools runs in/);
    expect(text.stderr).toMatch(/^ {2}the other \d+ servers start without them$/m);
    expect(existsSync(preview)).toBe(false);
  });
});
