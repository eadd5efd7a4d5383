import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

/** A config with one healthy backend, one that cannot start, and one serving a poisoned tool. */
function mixedConfig(dir: string, extra: Record<string, unknown> = {}): string {
  const file = join(dir, "metatools.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: { everything: servers.everything(), broken: { command: join(dir, "no-such-server"), args: ["--port", "1"] }, weather: servers.poisoned() },
      metatools: { code: { enabled: false }, ...extra },
    }),
  );
  return file;
}

describe("metatools doctor", () => {
  it("reports a healthy, a failing and a quarantined backend as one table, with fixes, and exits 1", async () => {
    const dir = tempDir();
    const file = mixedConfig(dir);
    const { code, stdout } = await runCli(["doctor", "--config", file]);
    expect(code).toBe(1);
    const rows = Object.fromEntries(
      stdout
        .split("\n")
        .filter((l) => /^(everything|broken|weather) /.test(l))
        .map((l) => [l.split(/\s+/)[0], l.split(/\s+/).slice(1)]),
    );
    expect(rows.everything?.slice(0, 3)).toEqual(["stdio", "ready", "15"]);
    expect(rows.broken?.slice(0, 3)).toEqual(["stdio", "failed", "0"]);
    expect(rows.weather?.slice(0, 4)).toEqual(["stdio", "quarantined", "2", "1"]);
    expect(stdout).toContain(`config     ✓ ${file}: 3 backends, code tools off`);
    expect(stdout).toContain("2 problems:");
    expect(stdout).toMatch(/✗ broken: failed: /);
    // A program that is not there is said so, with the field to correct (not "run it by hand").
    expect(stdout).toContain(`\`${join(dir, "no-such-server")}\` does not exist (spawn ${join(dir, "no-such-server")} ENOENT)`);
    expect(stdout).toContain("→ correct mcpServers.broken.command in the config: the program's path");
    expect(stdout).toContain("metatools approve weather:weather");
    expect(stdout).toMatch(/lock file\s+✓ .*metatools\.lock\.json: \d+ tool definitions pinned/);
    // No embedder configured: the built-in one, every tool embedded and cached under the user's cache folder.
    expect(stdout).toMatch(
      /embedder\s+✓ built-in \(static:builtin:\w+, \d+ dimensions\): (\d+) of \1 tools embedded, \d+ cached in \S+metatools\/embeddings\/static_builtin_\w+\.[0-9a-f]{16}\.vec/,
    );
    // With a config file, what search learns is kept in a file beside the other caches.
    expect(stdout).toMatch(/learning\s+✓ on: \d+ terms learned, kept in \S+metatools\/learned\/\w+\.json/);
    // Not a terminal: no colour codes.
    expect(stdout).not.toContain("\u001b[");
  });

  it("gives the same findings as JSON, with connect times", async () => {
    const dir = tempDir();
    const { code, stdout } = await runCli(["doctor", "--json", "--config", mixedConfig(dir)]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      backends: { namespace: string; status: string; tools: number; quarantined: number; connectMs?: number }[];
      problems: { subject: string }[];
      store: { ok: boolean; kind: string };
      embedder: { status: string; embedded?: number; total?: number; cached?: number };
    };
    const by = Object.fromEntries(report.backends.map((b) => [b.namespace, b]));
    expect(by.everything).toMatchObject({ status: "ready", tools: 15, quarantined: 0, protocolVersion: "2025-11-25" });
    expect(by.broken).toMatchObject({ status: "failed", tools: 0 });
    expect(by.weather).toMatchObject({ status: "quarantined", tools: 2, quarantined: 1 });
    for (const name of ["everything", "broken", "weather"]) expect(by[name]!.connectMs).toBeGreaterThanOrEqual(0);
    expect(report.problems.map((p) => p.subject).sort()).toEqual(["broken", "weather"]);
    expect(report.store).toMatchObject({ kind: "memory", ok: true });
    expect(report.embedder).toMatchObject({ status: "ready", type: "builtin", id: expect.stringMatching(/^static:builtin:/), dimensions: expect.any(Number) });
    expect(report.embedder.embedded).toBe(report.embedder.total);
    expect(report.embedder.total).toBeGreaterThan(13);
    expect(report.embedder.cached).toBeGreaterThanOrEqual(report.embedder.total!);
    expect((report as { learning?: unknown }).learning).toEqual({ status: "on", terms: 0, where: expect.stringMatching(/metatools\/learned\/\w+\.json$/) });
  });

  it("says search is BM25 only when the config turns the embedder off", async () => {
    const dir = tempDir();
    const file = mixedConfig(dir, { search: { embedder: false } });
    const text = await runCli(["doctor", "--config", file]);
    expect(text.stdout).toMatch(/embedder\s+– off: search is BM25 only \(metatools\.search\.embedder is false/);
    const json = await runCli(["doctor", "--json", "--config", file]);
    expect(JSON.parse(json.stdout).embedder).toEqual({ status: "off" });
    const unlearning = await runCli(["doctor", "--config", mixedConfig(tempDir(), { learn: false })]);
    expect(unlearning.stdout).toMatch(/learning\s+– off: search does not learn from use \(metatools\.learn is false\)/);
  });

  it("exits 0 on a healthy setup, colours only when asked, and names an unreachable store as a problem", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { everything: servers.everything() } }));
    const healthy = await runCli(["doctor"], { cwd: dir, env: { FORCE_COLOR: "1" } });
    expect(healthy.code).toBe(0);
    expect(healthy.stdout).toContain("\u001b[32mno problems found\u001b[39m");
    const noColor = await runCli(["doctor"], { cwd: dir, env: { FORCE_COLOR: "1", NO_COLOR: "1" } });
    expect(noColor.stdout).not.toContain("\u001b[");

    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: {}, metatools: { store: { url: "redis://127.0.0.1:1" } } }));
    const down = await runCli(["doctor", "--json"], { cwd: dir });
    expect(down.code).toBe(1);
    const report = JSON.parse(down.stdout) as { store: { ok: boolean; error: string }; problems: { subject: string; fix: string }[] };
    expect(report.store.ok).toBe(false);
    expect(report.problems).toEqual([expect.objectContaining({ subject: "store", fix: expect.stringContaining("metatools.store.url") })]);
  });

  it("shows secrets from the environment redacted, in the table, the problems and the JSON", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "metatools.json"),
      JSON.stringify({ mcpServers: { api: { command: join(dir, "no-such-server"), args: ["--token", "${DOCTOR_TOKEN}"] } } }),
    );
    const env = { DOCTOR_TOKEN: "ghp_supersecretvalue123" };
    const text = await runCli(["doctor"], { cwd: dir, env });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("--token");
    expect(text.stdout).not.toContain("ghp_supersecretvalue123");
    const json = await runCli(["doctor", "--json"], { cwd: dir, env });
    expect(json.stdout).toContain("--token");
    expect(json.stdout).not.toContain("ghp_supersecretvalue123");
  });

  it("exits 2 on an invalid config file or lock file, naming the file and field", async () => {
    const dir = tempDir();
    // A bad server entry is that server's problem (needs_config, see needs-config.test.ts); a bad metatools section is the file's.
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { x: { command: 42 } }, metatools: { timeouts: { connectMs: "soon" } } }));
    const text = await runCli(["doctor"], { cwd: dir });
    expect(text.code).toBe(2);
    expect(text.stdout).toMatch(/^config\s+✗ .*metatools\.json.*metatools\.timeouts\.connectMs/m);
    const json = await runCli(["doctor", "--json"], { cwd: dir });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ config: { ok: false, error: expect.stringContaining("metatools.timeouts.connectMs") } });
    writeFileSync(join(dir, "metatools.json"), "{ not json");
    expect((await runCli(["doctor"], { cwd: dir })).stdout).toMatch(/^config\s+✗ .*metatools\.json: not valid JSON/m);
    // Misspelt: the field meant is named, at the top and in a server entry.
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServer: { x: { command: "node" } } }));
    expect((await runCli(["doctor"], { cwd: dir })).stdout).toMatch(
      /^config\s+✗ .*unknown field\(s\) "mcpServer" \(did you mean "mcpServers" for "mcpServer"\?\)/m,
    );
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { x: { comand: "node" } } }));
    expect((await runCli(["doctor"], { cwd: dir })).stdout).toContain('(did you mean "command" for "comand"?)');

    // Valid config, corrupt lock file: found only as the app is built, and still reported by doctor itself.
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: {} }));
    writeFileSync(join(dir, "metatools.lock.json"), "{ half a file");
    const lock = await runCli(["doctor"], { cwd: dir });
    expect(lock.code).toBe(2);
    expect(lock.stdout).toMatch(/^config\s+✗ .*metatools\.lock\.json.*not valid JSON/m);
  });
});
