/**
 * Someone who can write in the config's folder plants symlinks where
 * metatools writes: at every temporary name the old writer would have used
 * (`<file>.<pid>.tmp` for the next pids). The OAuth token file, rewritten
 * by a real `metatools auth logout`, and the lock file, written by a real
 * `metatools doctor`, never send a byte through them and end as regular
 * files (a link at the file itself is replaced, never written through:
 * test/unit/util/files.test.ts).
 */
import { lstatSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { servers, tempDir } from "../../helpers/harness.js";

/** Links at `<file>.<pid>.tmp` for the pids the next processes will likely get (Linux hands them out in order). */
function plantTempLinks(file: string, victim: string, count = 3000): void {
  const last = Number(readFileSync("/proc/sys/kernel/ns_last_pid", "utf8"));
  const max = Number(readFileSync("/proc/sys/kernel/pid_max", "utf8"));
  // Pids wrap at pid_max and never reuse 0: each name once, however small the namespace.
  const pids = new Set<number>();
  for (let i = 1; i <= Math.min(count, max - 1); i++) pids.add(((last + i - 1) % (max - 1)) + 1);
  for (const pid of pids) symlinkSync(victim, `${file}.${pid}.tmp`);
}

const signIn = (token: string) => ({
  url: "https://mcp.example.test/mcp",
  tokens: { access_token: token, token_type: "Bearer" },
  expiresAt: Date.now() + 3_600_000,
  updatedAt: Date.now(),
});

describe.skipIf(process.platform !== "linux")("symlinks planted where metatools writes", () => {
  it("the token file rewritten by auth logout: no token reaches a planted link, and the file stays a regular 0600 file", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    const remote = (path: string) => ({ type: "http", url: `https://mcp.example.test/${path}` });
    writeFileSync(config, JSON.stringify({ mcpServers: { one: remote("mcp"), two: remote("mcp") }, metatools: { code: { enabled: false } } }));
    const tokens = join(dir, "metatools.tokens.json");
    const kept = "kept-access-token-0123456789";
    writeFileSync(tokens, JSON.stringify({ version: 1, backends: { one: signIn("gone-access-token-0123456789"), two: signIn(kept) } }), { mode: 0o600 });
    const victim = join(dir, "attacker-owned");
    writeFileSync(victim, "");
    plantTempLinks(tokens, victim);
    const { code, stdout, stderr } = await runCli(["auth", "logout", "one", "--config", config]);
    expect(code, stderr).toBe(0);
    expect(stdout).toContain("signed out of one");
    expect(readFileSync(victim, "utf8")).toBe("");
    expect(lstatSync(tokens).isSymbolicLink()).toBe(false);
    expect(lstatSync(tokens).mode & 0o777).toBe(0o600);
    expect(readFileSync(tokens, "utf8")).toContain(kept);
  });

  it("the lock file written by doctor: no pinned definition reaches a planted link", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
    const victim = join(dir, "attacker-owned");
    writeFileSync(victim, "");
    const lock = join(dir, "metatools.lock.json");
    plantTempLinks(lock, victim);
    await runCli(["doctor", "--config", config]);
    expect(readFileSync(victim, "utf8")).toBe("");
    expect(lstatSync(lock).isSymbolicLink()).toBe(false);
    expect(readFileSync(lock, "utf8")).toContain("everything:echo");
  });
});
