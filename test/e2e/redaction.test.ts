/**
 * Secrets substituted from the environment never show: not in log lines
 * (at debug level), not in errors about backends that fail with the secret
 * in their URL or stderr, and not in a tool's result that echoes its
 * environment. Real CLI processes and real backends.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

const KEY = "key-5f3a9c1e7b2d4f60";
const TOKEN = "tok-8e1b7c2a9d4f3e65a0";

describe("secret redaction", () => {
  it("keeps ${ENV} secrets out of logs, errors and results", async () => {
    const dir = tempDir();
    const config = join(dir, "metatools.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          remote: { url: "http://127.0.0.1:9/mcp?key=${SECRET_KEY}", headers: { Authorization: "Bearer ${SECRET_TOKEN}" } },
          leaky: {
            command: process.execPath,
            args: ["-e", "console.error('my token is ' + process.env.TOKEN); process.exit(3)"],
            env: { TOKEN: "${SECRET_TOKEN}" },
          },
          everything: { ...servers.everything(), env: { API_TOKEN: "${SECRET_TOKEN}" } },
        },
        metatools: { code: { enabled: false } },
      }),
    );
    const env = { SECRET_KEY: KEY, SECRET_TOKEN: TOKEN };
    const search = await runCli(["search", "environment", "--config", config, "--json", "--log-level", "debug"], { env });
    const run = await runCli(["run", "everything:get-env", "--args", "{}", "--config", config, "--json", "--log-level", "debug"], { env });
    const shown = [search.stdout, search.stderr, run.stdout, run.stderr].join("\n");
    // The paths were exercised: the failures and the environment were reported, with the values blanked.
    expect(search.stderr).toContain("[redacted $SECRET_KEY]");
    expect(search.stderr).toContain("my token is [redacted $SECRET_TOKEN]");
    expect(JSON.parse(run.stdout).ok).toBe(true);
    expect(run.stdout).toContain("[redacted $SECRET_TOKEN]");
    for (const secret of [KEY, TOKEN, encodeURIComponent(KEY)]) expect(shown).not.toContain(secret);
  });
});
