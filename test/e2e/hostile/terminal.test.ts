/**
 * Nothing from outside reaches a terminal raw: a backend's server name,
 * version, tool descriptions, stderr and results, and an authorization
 * server's URL, all carrying escape sequences, are printed by doctor,
 * auth status, search, describe, run and serve's log with no byte a
 * terminal would act on (src/util/terminal.ts, src/cli/output.ts).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isPrintable } from "../../../src/util/terminal.js";
import { runCli } from "../../helpers/cli.js";
import { tempDir } from "../../helpers/harness.js";
import { serveAndConnect } from "../../helpers/serve.js";

const fixture = fileURLToPath(new URL("../../fixtures/escape-server.mjs", import.meta.url));
const escapeServer = (fail = false) => ({ command: process.execPath, args: [fixture], ...(fail ? { env: { ESCAPE_FAIL: "1" } } : {}) });

function config(dir: string, mcpServers: Record<string, unknown>): string {
  const file = join(dir, "metatools.json");
  writeFileSync(file, JSON.stringify({ mcpServers, metatools: { code: { enabled: false } } }));
  return file;
}

/** Every control a terminal acts on, by name, for a failure message that says which came through. */
const controls = (text: string) => [...text].filter((c) => !isPrintable(c)).map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, "0")}`);

describe("text from outside, printed for a person", () => {
  it("doctor shows a hostile backend's name, version and stderr with no control sequence, as text and as JSON", async () => {
    const file = config(tempDir(), { escape: escapeServer(), broken: escapeServer(true) });
    const text = await runCli(["doctor", "--config", file]);
    expect(text.stdout).toMatch(/broken\s+stdio\s+failed/);
    // The words survive; only what a terminal would act on is gone or shown as \uXXXX.
    expect(text.stdout).toContain("fatal");
    expect(controls(text.stdout + text.stderr)).toEqual([]);
    const json = await runCli(["doctor", "--config", file, "--json"]);
    expect(controls(json.stdout + json.stderr)).toEqual([]);
    const report = JSON.parse(json.stdout) as { backends: { namespace: string; server?: { name: string } }[] };
    expect(report.backends.map((b) => b.namespace).sort()).toEqual(["broken", "escape", "metatools"]);
  });

  it("search, describe and run print a hostile description and result with no control sequence", async () => {
    const file = config(tempDir(), { escape: escapeServer() });
    for (const args of [
      ["search", "shout"],
      ["describe", "escape:shout", "--detail", "full"],
      ["run", "escape:shout", "--args", '{"text":"hello"}'],
      ["run", "escape:shout", "--args", '{"text":"fail"}'],
    ]) {
      const { stdout, stderr } = await runCli([...args, "--config", file, "--log-level", "debug"]);
      expect(stdout + stderr).toMatch(/shout|hello|fail/i);
      expect(controls(stdout + stderr), args.join(" ")).toEqual([]);
    }
  });

  it("serve's log quotes a backend's stderr with no control sequence", async () => {
    const file = config(tempDir(), { escape: escapeServer(), broken: escapeServer(true) });
    const served = await serveAndConnect("stdio", file);
    try {
      await served.client.callTool({ name: "run_tool", arguments: { tool_id: "escape:shout", args: { text: "x" } } });
    } finally {
      await served.close();
    }
    expect(served.stderr()).toContain("broken");
    expect(controls(served.stderr())).toEqual([]);
  });

  it("auth status shows an authorization server URL and a moved sign-in with no control sequence", async () => {
    const dir = tempDir();
    const file = config(dir, { remote: { type: "http", url: "https://mcp.example.test/mcp" } });
    const hostile = "https://as.example.test/\u001b]0;owned\u0007\u001b[2J\u009b31m";
    const signIn = (url: string) => ({
      url,
      tokens: { access_token: "a".repeat(24), token_type: "Bearer", refresh_token: "r".repeat(24) },
      expiresAt: Date.now() + 3_600_000,
      discovery: { authorizationServerUrl: hostile, authorizationServerMetadata: { issuer: hostile } },
      updatedAt: Date.now(),
    });
    const tokens = join(dir, "metatools.tokens.json");
    writeFileSync(tokens, JSON.stringify({ version: 1, backends: { remote: signIn("https://mcp.example.test/mcp") } }), { mode: 0o600 });
    const signedIn = await runCli(["auth", "status", "--config", file]);
    expect(signedIn.stdout).toContain("authorization server https://as.example.test/");
    expect(controls(signedIn.stdout + signedIn.stderr)).toEqual([]);
    const json = await runCli(["auth", "status", "--config", file, "--json"]);
    expect(controls(json.stdout)).toEqual([]);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain("as.example.test");
    // A sign-in made for another URL (quoted back to the person) is printable too.
    writeFileSync(tokens, JSON.stringify({ version: 1, backends: { remote: signIn(`https://x.test/\u001b[2J`) } }), { mode: 0o600 });
    const moved = await runCli(["auth", "status", "--config", file]);
    expect(moved.stdout).toContain("the sign-in is for");
    expect(controls(moved.stdout + moved.stderr)).toEqual([]);
  });
});
