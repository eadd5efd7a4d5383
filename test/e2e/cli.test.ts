/**
 * The CLI as users run it: the built `metatools` binary in a child process.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";
import { serveAndConnect } from "../helpers/serve.js";

function project(config: unknown): string {
  const dir = tempDir();
  writeFileSync(join(dir, "metatools.json"), JSON.stringify(config));
  writeFileSync(join(dir, "hello.txt"), "hello from a file\n");
  return dir;
}

describe("metatools CLI", () => {
  it("exits non-zero on a malformed config, naming file and field; a malformed server entry stops only that server", async () => {
    const dir = project({ mcpServers: { fs: { command: "node", args: "not-an-array" } }, metatools: { search: { defaultLimit: "five" } } });
    const { code, stderr } = await runCli(["search", "read"], { cwd: dir });
    expect(code).toBe(2);
    expect(stderr).toContain(join(dir, "metatools.json"));
    expect(stderr).toContain("metatools.search.defaultLimit");
    const server = project({ mcpServers: { fs: { command: "node", args: "not-an-array" } } });
    const listed = await runCli(["search", "read"], { cwd: server });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/fs: needs_config .*mcpServers\.fs\.args/);
  });

  it("serve also refuses a malformed config before speaking MCP", async () => {
    const dir = project({ metatools: { budgets: { inlineBytes: "big" } } });
    const { code, stderr, stdout } = await runCli(["serve"], { cwd: dir });
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("metatools.budgets.inlineBytes");
  });

  it("searches, describes and runs against a real backend, as JSON", async () => {
    const dir = project({ mcpServers: { fs: servers.filesystem(".") } });
    const search = await runCli(["search", "read text file", "--json", "--limit", "3"], { cwd: dir });
    expect(search.code).toBe(0);
    const hits = JSON.parse(search.stdout).hits.map((h: { id: string }) => h.id);
    expect(hits).toContain("fs:read_text_file");

    const described = await runCli(["describe", "fs:read_text_file", "--detail", "schema", "--json"], { cwd: dir });
    expect(JSON.parse(described.stdout).input_schema.required).toContain("path");

    const ran = await runCli(["run", "fs:read_text_file", "--args", JSON.stringify({ path: join(dir, "hello.txt") }), "--json"], { cwd: dir });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("hello from a file");
  });

  it("prints readable text without --json and exits 1 on a recoverable failure", async () => {
    const dir = project({ mcpServers: { fs: servers.filesystem(".") } });
    const search = await runCli(["search", "list directory"], { cwd: dir });
    expect(search.stdout).toMatch(/1\. fs:list_directory/);
    const bad = await runCli(["run", "fs:read_text_fil", "--args", "{}"], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("fs:read_text_file");
    // describe as a person reads it: the call, then a parameter table with required ones starred; no JSON, no colour in a pipe.
    const described = await runCli(["describe", "fs:read_text_file"], { cwd: dir });
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(/^fs:read_text_file/);
    expect(described.stdout).toMatch(/^call: read_text_file\(path\*/m);
    expect(described.stdout).toMatch(/^parameter\s+type\s+meaning$/m);
    expect(described.stdout).toMatch(/^path\*\s+string/m);
    expect(described.stdout).not.toContain('"input_schema"');
    expect(described.stdout).not.toContain("\u001b[");
    const unknown = await runCli(["describe", "fs:read_text_file", "fs:nope"], { cwd: dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toMatch(/^fs:read_text_file/);
    expect(unknown.stderr).toContain("unknown: fs:nope");
    const coloured = await runCli(["search", "list directory"], { cwd: dir, env: { FORCE_COLOR: "1" } });
    expect(coloured.stdout).toContain("\u001b[1mfs:list_directory\u001b[22m");
  });

  it("describe shows nested fields under their parent and a long enum in the meaning, not widening every row", async () => {
    const dir = project({
      mcpServers: { memory: servers.memory(join(tempDir(), "memory.jsonl")), everything: servers.everything() },
      metatools: { code: { enabled: false } },
    });
    const nested = await runCli(["describe", "memory:create_entities"], { cwd: dir });
    expect(nested.code, nested.stderr).toBe(0);
    expect(nested.stdout).toMatch(/^entities\*\s+object\[\]\s*$/m);
    expect(nested.stdout).toMatch(/^entities\[\]\.name\*\s+string\s+The name of the entity$/m);
    expect(nested.stdout).toMatch(/^entities\[\]\.observations\*\s+string\[\]\s+/m);
    const enumerated = await runCli(["describe", "everything:get-annotated-message"], { cwd: dir });
    expect(enumerated.code, enumerated.stderr).toBe(0);
    expect(enumerated.stdout).toMatch(/^messageType\*\s+enum\s+one of "error", "success", "debug"\. /m);
    // The type column is as wide as "boolean", not as the enum's values.
    expect(enumerated.stdout).toMatch(/^includeImage {2}boolean {2}Whether/m);
  });

  it("answers --help for the whole CLI and for each command, from the one command table", async () => {
    const all = await runCli(["--help"]);
    expect(all.code).toBe(0);
    for (const name of ["init", "serve", "search", "describe", "run", "doctor", "approve", "index", "vectors", "eval", "bench"])
      expect(all.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    const one = await runCli(["doctor", "--help"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^metatools doctor \[--json\]\n {2}one table: config, each backend's status, [^\n]+\n/);
    expect(one.stdout).toContain("\n  Also: --config FILE, --root DIR, --log-level debug|info|warn|error|silent");
  });

  it("takes --config, --root and --log-level before the command's name too", async () => {
    const dir = tempDir();
    const config = join(dir, "elsewhere.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false } } }));
    const doctor = await runCli(["--config", config, "--log-level=error", "doctor", "--json"], { cwd: tempDir() });
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(JSON.parse(doctor.stdout).config).toMatchObject({ file: config });
    const root = await runCli(["--root", dir, "search", "read a file", "--json"], { cwd: tempDir() });
    expect(root.code, root.stderr).toBe(0);
    expect(JSON.parse(root.stdout).hits.map((h: { id: string }) => h.id)).toContain("code:read_file");
    // Flags alone are no command: the usage, exit 2. Another flag first is not taken for one.
    expect(await runCli(["--config", config])).toMatchObject({ code: 2, stdout: expect.stringContaining("usage: metatools <command>") });
    expect((await runCli(["--json", "doctor"])).stderr).toContain('unknown command "--json"');
  });

  it("runs every command but serve --http when only metatools.http names an unset variable; serve --http refuses, naming it", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false }, http: { tokens: ["${ADMIN_TOKEN}"] } } }));
    const doctor = await runCli(["doctor", "--config", config], { env: { ADMIN_TOKEN: "" } });
    expect(doctor.stdout + doctor.stderr).not.toContain("ADMIN_TOKEN");
    expect(doctor.code).toBe(0);
    const search = await runCli(["search", "read", "--config", config], { env: { ADMIN_TOKEN: "" } });
    expect(search.code, search.stderr).toBe(0);
    const http = await runCli(["serve", "--http", "0", "--config", config], { env: { ADMIN_TOKEN: "" } });
    expect(http.code).toBe(2);
    expect(http.stderr).toContain("metatools.http.tokens[0]: environment variable ADMIN_TOKEN is not set");
  });

  it("serve counts its backends as doctor does, an entry that needs config included and said apart", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    const waiting = { ...servers.everything(), env: { API_KEY: "${NEVER_SET_KEY}" } };
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything(), waiting }, metatools: { code: { enabled: false } } }));
    const doctor = await runCli(["doctor", "--config", config, "--json"], { env: { NEVER_SET_KEY: "" } });
    expect(JSON.parse(doctor.stdout).config.backends).toBe(2);
    const served = await serveAndConnect("stdio", config);
    try {
      await served.client.listTools();
      expect(served.stderr()).toContain(`config ${config}: 2 backends (1 needs_config)`);
    } finally {
      await served.close();
    }
  });

  it("rejects bad flags with usage", async () => {
    const { code, stderr } = await runCli(["search", "x", "--limit", "many"], { cwd: tempDir() });
    expect(code).toBe(2);
    expect(stderr).toContain("--limit");
  });
});
