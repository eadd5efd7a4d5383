/**
 * The package as published: `npm run package` (scripts/pack.mjs), installed
 * into an empty prefix as a user installs it (`npm install -g
 * ./metatools-*.tgz --prefix DIR`), with no warning, then
 * its `metatools` command serves a real client from another folder: the
 * built-in catalog found, the code tools' grammars found, nothing read from
 * this repository.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/harness.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the packed package", () => {
  it("installs into an empty prefix and serves: catalog loaded, code tools parsing", async () => {
    const work = tempDir();
    // `npm run package`: dist/ is built already (npm ci runs prepare), so it only packs.
    execFileSync(process.execPath, [join(ROOT, "scripts", "pack.mjs"), "--out", work], { cwd: ROOT, stdio: "ignore" });
    const tarball = readdirSync(work).find((f) => /^metatools-.*\.tgz$/.test(f))!;
    const prefix = join(work, "prefix");
    const installed = spawnSync("npm", ["install", "-g", join(work, tarball), "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund"], {
      cwd: work,
      encoding: "utf8",
    });
    expect(installed.status, installed.stderr).toBe(0);
    // The tarball holds no script an install would run (or be warned about): only a clone builds.
    expect(installed.stderr).not.toMatch(/install-scripts|prepare/);
    const command = join(prefix, "bin", "metatools");
    expect(existsSync(command)).toBe(true);

    // A project elsewhere, with one file to parse.
    const project = join(work, "project");
    mkdirSync(join(project, "src"), { recursive: true });
    writeFileSync(join(project, "src", "shapes.ts"), "export class Circle {\n  area(r: number): number {\n    return Math.PI * r * r;\n  }\n}\n");
    writeFileSync(join(project, "metatools.json"), JSON.stringify({ mcpServers: {} }));
    const client = new Client({ name: "package-test", version: "1" });
    const env = { ...getDefaultEnvironment(), XDG_CACHE_HOME: join(work, "cache"), XDG_STATE_HOME: join(work, "state") };
    await client.connect(
      new StdioClientTransport({ command, args: ["serve", "--config", join(project, "metatools.json")], cwd: project, env, stderr: "ignore" }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "describe_tool", "run_tool"]);
      const call = async (name: string, args: Record<string, unknown>) =>
        JSON.parse(((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]!.text);
      // The catalog shipped in the package documents the built-in tools.
      const doc = await call("describe_tool", { tool_id: "code:symbols", detail_level: "full" });
      expect(JSON.stringify(doc)).toMatch(/name_path/);
      expect(doc.examples?.length ?? doc.tool?.examples?.length ?? 0).toBeGreaterThan(0);
      // The grammars are found from the installed location.
      const symbols = await call("run_tool", { tool_id: "code:symbols", args: { path: "src/shapes.ts" } });
      expect(symbols.ok).toBe(true);
      expect(JSON.stringify(symbols)).toContain("Circle");
      expect(JSON.stringify(symbols)).toContain("area");
      // Search ranks with the built-in embedder's table, shipped in the package (loaded just after start).
      let mode = "";
      for (let i = 0; i < 50 && mode !== "hybrid"; i++) {
        mode = (await call("search_tools", { query: "find where a function is defined" })).mode;
        if (mode !== "hybrid") await new Promise((r) => setTimeout(r, 200));
      }
      expect(mode).toBe("hybrid");
    } finally {
      await client.close();
    }

    // init in the installed copy names the copy, which no moved clone breaks.
    writeFileSync(
      join(project, "desktop.json"),
      JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", project] } } }),
    );
    const init = spawnSync(command, ["init", "--from", join(project, "desktop.json"), "--dry-run", "--json", "--out", join(project, "new.json")], {
      cwd: project,
      env,
      encoding: "utf8",
    });
    expect(init.status, init.stderr).toBe(0);
    const register = JSON.stringify(JSON.parse(init.stdout).register);
    expect(register).toContain(join(prefix, "lib", "node_modules", "metatools", "dist", "cli.mjs"));
    expect(register).not.toContain("from its clone");

    // What only some deployments use is not installed with it, and each says how to install it when asked for.
    expect(existsSync(join(prefix, "lib", "node_modules", "metatools", "node_modules", "@keyv", "redis"))).toBe(false);
    writeFileSync(join(project, "redis.json"), JSON.stringify({ mcpServers: {}, metatools: { store: { url: "redis://127.0.0.1:1" } } }));
    const doctor = spawnSync(command, ["doctor", "--config", join(project, "redis.json")], { cwd: project, env, encoding: "utf8" });
    expect(doctor.stdout + doctor.stderr).toContain("npm install @keyv/redis");
    const traced = spawnSync(command, ["search", "symbols", "--config", join(project, "metatools.json")], {
      cwd: project,
      env: { ...env, OTEL_TRACES_EXPORTER: "otlp" },
      encoding: "utf8",
    });
    expect(traced.status, traced.stderr).toBe(0);
    expect(traced.stderr).toContain("npm install @opentelemetry/sdk-node");
  }, 180_000);
});
