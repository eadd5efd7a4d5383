import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clientFiles } from "../../src/cli/init/clients.js";
import { loadConfig } from "../../src/config/load.js";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

/** A home and a project folder holding the three clients' configs, as a user's machine would. */
function machine(): { home: string; project: string; env: NodeJS.ProcessEnv } {
  // Real paths: the child's working directory is reported resolved (macOS's /var is a link).
  const home = realpathSync(tempDir("metatools-home-"));
  const project = realpathSync(tempDir("metatools-project-"));
  const env = { HOME: home, USERPROFILE: home, APPDATA: join(home, "AppData", "Roaming"), XDG_CONFIG_HOME: "" };
  const desktop = clientFiles("claude-desktop", { home, cwd: project, platform: process.platform, env })[0]!;
  const write = (file: string, json: unknown) => {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, JSON.stringify(json));
  };
  const everything = servers.everything();
  write(desktop, {
    mcpServers: {
      everything,
      github: {
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-github"],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "ghp_literal_secret_value" },
        alwaysAllow: ["search"],
      },
      "my tools!": { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${EXAMPLE_TOKEN}" } },
      metatools: { command: "npx", args: ["metatools", "serve", "--config", "/somewhere/metatools.json"] },
    },
  });
  // Claude Code: the same server at user scope (kept once), a clashing name in this project's local scope.
  write(join(home, ".claude.json"), {
    numStartups: 3,
    mcpServers: { everything },
    projects: { [project]: { mcpServers: { github: { type: "http", url: "https://api.githubcopilot.com/mcp/" } } } },
  });
  write(join(project, ".cursor", "mcp.json"), {
    mcpServers: {
      linear: { url: "https://mcp.linear.app/sse", type: "sse", headers: { Authorization: "Bearer ${env:LINEAR_TOKEN}" } },
      code: { command: "code-mcp" },
    },
  });
  return { home, project, env: { ...env, npm_command: "" } };
}

describe("metatools init", () => {
  it("run in metatools' own folder (a clone), names no --root for the desktop apps: the code tools would serve metatools' source", async () => {
    const { env } = machine();
    const clone = realpathSync(join(import.meta.dirname, "..", ".."));
    const { code, stdout, stderr } = await runCli(["init", "--from", "claude-desktop", "--dry-run", "--json", "--out", join(tempDir(), "metatools.json")], {
      cwd: clone,
      env,
    });
    expect(code, stderr).toBe(0);
    const desktop = (JSON.parse(stdout) as { register: Record<string, string> }).register["claude-desktop"]!;
    expect(desktop).not.toMatch(/"args": \[[^\]]*"--root"/);
    expect(desktop).toContain("no --root is written: this is metatools' own folder");
    // The line names the clone's dist/: moving the clone breaks it, and the note says so and what stays.
    expect(desktop).toContain(join(clone, "dist", "cli.mjs"));
    expect(desktop).toContain("this runs metatools from its clone: if the clone moves, run init again");
  });

  it("imports every client's servers into a valid metatools config and says how to register metatools", async () => {
    const { project, env } = machine();
    const { code, stdout } = await runCli(["init", "--json"], { cwd: project, env });
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as {
      file: string;
      servers: Record<string, Record<string, unknown>>;
      notes: string[];
      literalSecrets: string[];
      variables: string[];
      register: Record<string, string>;
      sources: { client: string }[];
    };
    expect(result.file).toBe(join(project, "metatools.json"));
    expect(Object.keys(result.servers).sort()).toEqual(["code-server", "everything", "github", "github-2", "linear", "my-tools"]);
    // What is printed masks the literal token; the file keeps it, readable by its owner only.
    expect(result.servers.github).toEqual({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github"],
      env: { GITHUB_PERSONAL_ACCESS_TOKEN: "<secret: 24 characters>" },
    });
    expect(stdout).not.toContain("ghp_literal_secret_value");
    expect(JSON.parse(readFileSync(result.file, "utf8")).mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe("ghp_literal_secret_value");
    expect(result.servers["github-2"]).toEqual({ url: "https://api.githubcopilot.com/mcp/" });
    expect(result.servers.linear).toEqual({ type: "sse", url: "https://mcp.linear.app/sse", headers: { Authorization: "Bearer ${LINEAR_TOKEN}" } });
    expect(result.notes.join("\n")).toMatch(/skipped metatools .*: that is metatools itself/);
    expect(result.notes.join("\n")).toMatch(/github .* is now "github-2": the name was taken by a different server/);
    expect(result.notes.join("\n")).toMatch(/code .* is now "code-server": metatools serves "code" itself/);
    // What the client ran without asking stays so: the profile init writes allows it, and asks before other destructive tools.
    expect(result.notes.join("\n")).not.toMatch(/left out "alwaysAllow"/);
    expect(result.notes.join("\n")).toMatch(/alwaysAllow \(1 tool\) became profile "default"/);
    expect(JSON.parse(readFileSync(result.file, "utf8")).metatools.profiles).toEqual({
      default: { approvals: { destructive: "ask", tools: { "github:search": "allow" } } },
    });
    expect(result.literalSecrets).toEqual(["github.env.GITHUB_PERSONAL_ACCESS_TOKEN"]);
    expect(result.variables).toEqual(["EXAMPLE_TOKEN", "LINEAR_TOKEN"]);
    expect(result.sources.map((s) => s.client).sort()).toEqual(["claude-code", "claude-code", "claude-desktop", "cursor"]);
    expect(result.register["claude-code"]).toContain(`claude mcp add --scope user metatools -- ${process.execPath} `);
    expect(result.register["claude-code"]).toContain(`serve --config ${result.file}`);
    expect(result.register.cursor).toContain('"metatools": { "command"');
    // A literal secret: readable by the owner only. And metatools reads the file as written.
    expect(statSync(result.file).mode & 0o777).toBe(0o600);
    const loaded = loadConfig({ configPath: result.file, env: { EXAMPLE_TOKEN: "t0ken-value", LINEAR_TOKEN: "t0ken-value" } });
    expect(loaded.backends.map((b) => b.namespace).sort()).toEqual(Object.keys(result.servers).sort());
  });

  it("gives a config that searches at once, and never overwrites one without --force", async () => {
    const { project, env } = machine();
    const first = await runCli(["init", "--from", "claude-desktop"], { cwd: project, env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`Wrote ${join(project, "metatools.json")} with 3 servers:`);
    expect(first.stdout).toContain("Register metatools in Claude Desktop");
    expect(first.stdout).toContain('Try it:    metatools search "read a file"');
    // How a variable reaches a metatools that a desktop app launches, not from this shell.
    expect(first.stdout + first.stderr).toContain('to give metatools it when a client launches it: add "env": { "EXAMPLE_TOKEN": "…" } to the metatools entry');
    const written = readFileSync(join(project, "metatools.json"), "utf8");
    // Only the healthy server is needed to search; the others would fetch packages or reach the network.
    writeFileSync(join(project, "metatools.json"), JSON.stringify({ mcpServers: { everything: JSON.parse(written).mcpServers.everything } }));
    const search = await runCli(["search", "add two numbers", "--json"], { cwd: project, env });
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { hits: { id: string }[] }).hits[0]!.id).toBe("everything:get-sum");

    const again = await runCli(["init", "--from", "claude-desktop"], { cwd: project, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists; pass --force to replace it");
    expect(JSON.parse(readFileSync(join(project, "metatools.json"), "utf8")).mcpServers).not.toHaveProperty("github");
    const forced = await runCli(["init", "--from", "claude-desktop", "--force"], { cwd: project, env });
    expect(forced.code).toBe(0);
    expect(readFileSync(join(project, "metatools.json"), "utf8")).toBe(written);
  });

  it("leaves out metatools as it registered itself, skips what metatools would refuse, and finds secrets in args and URLs", async () => {
    const { home, project, env } = machine();
    const first = JSON.parse((await runCli(["init", "--json", "--from", "claude-desktop"], { cwd: project, env })).stdout) as {
      register: Record<string, string>;
    };
    // The user follows the printed snippet: Claude Desktop now launches this very CLI.
    const snippet = /"metatools": (\{.*\})\n/.exec(first.register["claude-desktop"]!)![1]!;
    writeFileSync(join(project, ".cursor", "mcp.json"), "{ not json");
    writeFileSync(
      join(home, ".claude.json"),
      JSON.stringify({
        mcpServers: {
          metatools: JSON.parse(snippet),
          db: { command: "npx", args: ["-y", "pg-mcp", "postgresql://ada:hunter22@db.local/app", "--root=${workspaceFolder}"] },
          search: { url: "https://search.example.com/mcp?api_key=sk-12345678" },
          odd: { command: "odd-mcp", args: "--not-a-list", disabled: "yes" },
          empty: { url: "" },
          "valid_name.": { command: "x" },
        },
      }),
    );
    const { code, stdout } = await runCli(["init", "--json", "--force"], { cwd: project, env });
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as { servers: Record<string, Record<string, unknown>>; notes: string[]; literalSecrets: string[] };
    const notes = result.notes.join("\n");
    expect(Object.keys(result.servers)).not.toContain("metatools");
    expect(notes).toMatch(/skipped metatools \(.*\.claude\.json\): that is metatools itself/);
    expect(notes).toMatch(/skipped Cursor: cannot read .*mcp\.json/);
    expect(notes).toMatch(/skipped empty .*: metatools would refuse it: url: /);
    expect(notes).toMatch(/odd .*: left out "args": expected a list of strings/);
    expect(notes).toMatch(/odd .*: left out "disabled": expected true or false/);
    expect(notes).toMatch(/db .*: \$\{workspaceFolder\} became /);
    expect(result.servers.odd).toEqual({ command: "odd-mcp" });
    expect(result.servers["valid_name."]).toEqual({ command: "x" });
    expect(result.servers.db!.args).toEqual(["-y", "pg-mcp", "<secret: 38 characters>", `--root=${project}`]);
    expect(result.literalSecrets).toEqual(expect.arrayContaining(["db.args", "search.url", "github.env.GITHUB_PERSONAL_ACCESS_TOKEN"]));
    expect(stdout).not.toContain("hunter22");
    expect(stdout).not.toContain("sk-12345678");
  });

  it("says where it looked when a client has no config, and refuses a file with no mcpServers", async () => {
    const home = realpathSync(tempDir("metatools-home-"));
    const project = realpathSync(tempDir("metatools-project-"));
    const env = { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: "" };
    const missing = await runCli(["init", "--from", "cursor"], { cwd: project, env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`no Cursor config found (looked for ${join(home, ".cursor", "mcp.json")}, ${join(project, ".cursor", "mcp.json")})`);
    writeFileSync(join(project, "other.json"), JSON.stringify({ servers: {} }));
    const wrong = await runCli(["init", "--from", "other.json"], { cwd: project, env });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('other.json has no "mcpServers" map');

    const nothing = await runCli(["init"], { cwd: project, env });
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toContain("No MCP client config found");
    expect(JSON.parse(readFileSync(join(project, "metatools.json"), "utf8"))).toEqual({ mcpServers: {} });
  });
});
