/**
 * A backend that fails to start is remembered (with why, beside the tool
 * snapshot, for `timeouts.failureMemoryMs`): the CLI's search and describe
 * answer from the snapshot without starting it again, say it once, and
 * `--refresh` (or a changed config entry) tries it at once. The built CLI
 * runs as a child process; the failing backend writes a marker file each
 * time it is started, so "not started" is seen, not inferred.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

/** A server that notes each start in `marker`, says why it cannot start, and exits. */
function failingServer(dir: string, marker: string): { command: string; args: string[] } {
  const script = join(dir, "failing.mjs");
  writeFileSync(
    script,
    `import { appendFileSync } from "node:fs";\nappendFileSync(${JSON.stringify(marker)}, "started\\n");\nprocess.stderr.write("failing: no API key configured\\n");\nsetTimeout(() => process.exit(1), 50);\n`,
  );
  return { command: process.execPath, args: [script] };
}

function setup(metatools: Record<string, unknown> = {}) {
  const dir = tempDir();
  const marker = join(dir, "started.log");
  const config = join(dir, "metatools.json");
  const write = (extraArgs: string[] = []) => {
    const failing = failingServer(dir, marker);
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: { everything: servers.everything(), failing: { ...failing, args: [...failing.args, ...extraArgs] } },
        metatools: { code: { enabled: false }, search: { embedder: false }, ...metatools },
      }),
    );
  };
  write();
  const starts = () => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean).length : 0);
  const search = (...flags: string[]) => runCli(["search", "add two numbers", "--json", "--config", config, ...flags]);
  return { config, starts, search, write };
}

/** How many lines of `stderr` tell of the failing backend's failure. */
const told = (stderr: string) => stderr.split("\n").filter((line) => line.includes("no API key configured")).length;

describe("a backend that failed to start", () => {
  it("is not started again by the next search or describe, which answer from the snapshot and tell it at most once", async () => {
    const { starts, search, config } = setup();
    const first = await search();
    expect(first.code, first.stderr).toBe(0);
    // One connect: a server that closes while asked which protocol era it speaks is tried once more as a 2025 one (src/backends/mcp.ts).
    const once = starts();
    expect(once).toBeGreaterThanOrEqual(1);
    expect(once).toBeLessThanOrEqual(2);
    // Started once in this command, failed once, said once (not once per retry).
    expect(told(first.stderr)).toBeLessThanOrEqual(1);

    const second = await search();
    expect(second.code, second.stderr).toBe(0);
    expect(starts()).toBe(once);
    const body = JSON.parse(second.stdout) as { hits: { id: string }[]; unavailable: Record<string, string>[] };
    expect(body.hits[0]!.id).toBe("everything:get-sum");
    // Still said, with the reason it failed and when it is tried again, once in all (the command's own output).
    expect(body.unavailable).toEqual([expect.objectContaining({ namespace: "failing", status: "failed", retry_at: expect.any(String) })]);
    expect(body.unavailable[0]!.error).toContain("no API key configured");
    expect(Date.parse(body.unavailable[0]!.retry_at!)).toBeGreaterThan(Date.now() + 60_000);
    expect(told(second.stderr)).toBe(0);

    const text = await runCli(["search", "add two numbers", "--config", config]);
    expect(text.code, text.stderr).toBe(0);
    expect(told(text.stdout) + told(text.stderr)).toBe(1);
    const described = await runCli(["describe", "everything:get-sum", "--json", "--config", config]);
    expect(described.code, described.stderr).toBe(0);
    expect(starts()).toBe(once);

    // --refresh tries it now.
    const refreshed = await search("--refresh");
    expect(refreshed.code, refreshed.stderr).toBe(0);
    // Started again (and, in a slow command, retried after its first backoff step): each failure said once, not once per try.
    expect(starts()).toBeGreaterThan(once);
    expect(told(refreshed.stderr)).toBe(1);
  }, 60_000);

  it("is tried again at once when its config entry changes, and every time when failureMemoryMs is 0", async () => {
    const edited = setup();
    await edited.search();
    const once = edited.starts();
    edited.write(["--changed"]);
    await edited.search();
    expect(edited.starts()).toBe(2 * once);

    const forgetful = setup({ timeouts: { failureMemoryMs: 0 } });
    await forgetful.search();
    await forgetful.search();
    expect(forgetful.starts()).toBe(2 * once);
  }, 60_000);

  it("is forgotten once it starts: a backend that works again is started and listed as before", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    const broken = { mcpServers: { kv: { command: join(dir, "kv-server") } }, metatools: { code: { enabled: false }, search: { embedder: false } } };
    writeFileSync(config, JSON.stringify(broken));
    const failed = await runCli(["search", "look up a key", "--json", "--config", config]);
    expect(failed.code, failed.stderr).toBe(0);
    expect(JSON.parse(failed.stdout).unavailable[0]).toMatchObject({ namespace: "kv", status: "failed" });
    // Doctor always tries, and what it finds is what the next command knows.
    const kv = servers.exec(join(dir, "calls.log"));
    writeFileSync(join(dir, "kv-server"), `#!/bin/sh\nCALL_LOG=${kv.env.CALL_LOG} exec ${process.execPath} ${kv.args[0]}\n`, { mode: 0o755 });
    const doctor = await runCli(["doctor", "--json", "--config", config]);
    expect(doctor.stdout, doctor.stderr).not.toBe("");
    expect(JSON.parse(doctor.stdout).backends.find((b: { namespace: string }) => b.namespace === "kv")).toMatchObject({ status: "ready" });
    const found = await runCli(["search", "look up a key", "--json", "--config", config]);
    expect(found.code, found.stderr).toBe(0);
    const body = JSON.parse(found.stdout) as { hits: { id: string }[]; unavailable?: unknown };
    expect(body.hits[0]!.id).toMatch(/^kv:/);
    expect(body.unavailable).toBeUndefined();
  }, 60_000);
});
