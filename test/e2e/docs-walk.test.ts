/**
 * The newcomer walk of docs/getting-started.md, run as written: `init` on a
 * Claude Desktop config, `doctor`, `search`, `describe`, `run`, then the MCP
 * Inspector's CLI against `serve` over stdio and over HTTP. Each command's
 * output must be what the doc shows.
 *
 * The home folder is a temporary one (`/home/ada` in the doc). `npx` is a
 * stand-in that runs the packages this project installed instead of
 * fetching them (the public everything and filesystem servers, and this
 * clone's `metatools`), and the Inspector installed from npm for the run;
 * everything else is real. Output is compared after the same masking on
 * both sides: paths, durations, the HTTP port, file-name hashes.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { tempDir } from "../helpers/harness.js";
import { mismatch, transcriptSteps } from "../helpers/transcript.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const DOC = "docs/getting-started.md";
const require = createRequire(import.meta.url);

/** The Inspector the doc names (its commands pin this version). */
const INSPECTOR_VERSION = "2.12.0";

/**
 * The Inspector, installed from npm for this run into a folder of its own:
 * it needs Node.js 22.19, so it is in no lockfile of the project (a plain
 * `npm ci` would warn about it on Node.js 20); here it runs with npm's
 * warning, as the doc says.
 */
function installInspector(): { bin: string; version: string } {
  const prefix = tempDir();
  const spec = `@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`;
  const ran = spawnSync("npm", ["install", "--no-save", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--prefix", prefix, spec], {
    encoding: "utf8",
    timeout: 300_000,
  });
  if (ran.status !== 0) throw new Error(`npm install ${spec} failed:\n${ran.stderr}`);
  const manifest = join(prefix, "node_modules", "@modelcontextprotocol", "inspector", "package.json");
  const { bin, version } = JSON.parse(readFileSync(manifest, "utf8")) as { bin: Record<string, string>; version: string };
  return { bin: join(dirname(manifest), bin["mcp-inspector"]!), version };
}

const INSPECTOR = process.platform === "win32" ? undefined : installInspector();

/** `npx` for the walk: each package it is asked for, as installed here. */
function writeNpx(bin: string): void {
  const packages = {
    metatools: CLI,
    "@modelcontextprotocol/server-everything": require.resolve("@modelcontextprotocol/server-everything/dist/index.js"),
    "@modelcontextprotocol/server-filesystem": require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js"),
    "@modelcontextprotocol/inspector": INSPECTOR?.bin,
  };
  const versions = { "@modelcontextprotocol/inspector": INSPECTOR?.version };
  const script = `#!${process.execPath}
const packages = ${JSON.stringify(packages)};
const versions = ${JSON.stringify(versions)};
const args = process.argv.slice(2).filter((a) => a !== "-y" && a !== "--yes");
// name@version: the version must be the one installed here (the doc pins what the tests run).
const [, name, version] = /^(@?[^@]+)(?:@(.+))?$/.exec(args[0] ?? "") ?? [];
const script = packages[name];
if (!script) { console.error("npx (test stand-in): no package " + args[0]); process.exit(1); }
if (version && version !== versions[name]) { console.error("npx (test stand-in): " + name + " is " + versions[name] + " here, not " + version); process.exit(1); }
// As npm exec does: the command it runs can tell how it was launched.
const env = { ...process.env, npm_command: "exec" };
const child = require("node:child_process").spawn(process.execPath, [script, ...args.slice(1)], { stdio: "inherit", env });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
`;
  writeFileSync(join(bin, "npx"), script);
  chmodSync(join(bin, "npx"), 0o755);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const MARK = "\u0001step ";

/** Runs every command in one shell (so `export` and `&` work as typed), each step's output after a marker. */
function runWalk(commands: string[], cwd: string, env: NodeJS.ProcessEnv, port: number): Promise<string[]> {
  const lines = ["exec 2>&1"];
  commands.forEach((command, i) => {
    lines.push(`printf '${MARK}%s\\n' ${i}`, command);
    if (command.endsWith("&")) lines.push(`for _ in $(seq 300); do (exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && break; sleep 0.1; done`);
  });
  lines.push("kill $(jobs -p) 2>/dev/null; wait");
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", lines.join("\n")], { cwd, env, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.on("error", reject);
    child.on("close", () =>
      resolve(
        out
          .split(MARK)
          .slice(1)
          .map((part) => part.slice(part.indexOf("\n") + 1)),
      ),
    );
  });
}

describe.skipIf(process.platform === "win32")(`the newcomer walk in ${DOC}`, () => {
  it("prints, command by command, what the doc shows", async () => {
    const doc = readFileSync(join(ROOT, DOC), "utf8");
    const steps = ["walk", "inspector"].flatMap((name) => transcriptSteps(doc, name));
    expect(steps.map((s) => s.command.split(" ").slice(0, 3).join(" "))).toEqual(expect.arrayContaining(["npx metatools init", "npx metatools doctor"]));
    const home = join(tempDir(), "home", "ada");
    const bin = join(home, "..", "bin");
    for (const dir of [join(home, ".config", "Claude"), join(home, "metatools"), join(home, "notes"), bin]) mkdirSync(dir, { recursive: true });
    writeNpx(bin);
    writeFileSync(join(home, "notes", "todo.md"), "# To do\n\n- water the plants\n- answer Grace\n");
    const npx = (name: string, ...args: string[]) => ({ command: "npx", args: ["-y", `@modelcontextprotocol/server-${name}`, ...args] });
    const desktop = { mcpServers: { everything: npx("everything", "stdio"), files: npx("filesystem", join(home, "notes")) } };
    writeFileSync(join(home, ".config", "Claude", "claude_desktop_config.json"), JSON.stringify(desktop, null, 2));

    const port = await freePort();
    const env: NodeJS.ProcessEnv = { HOME: home, PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, LANG: "C.UTF-8", NO_COLOR: "1" };
    const commands = steps.map((s) => s.command.replaceAll("/home/ada", home).replaceAll("8080", String(port)));
    const printed = await runWalk(commands, join(home, "metatools"), env, port);

    // The same masks on both sides: where things live, how long they took.
    const mask = (text: string) =>
      text
        .replaceAll(ROOT, "/home/ada/metatools")
        .replaceAll(home, "/home/ada")
        .replaceAll(process.execPath, "/usr/bin/node")
        .replaceAll(String(port), "8080")
        .replace(/ *\b\d+ ms\b/g, " N ms")
        .replace(/(duration_ms\\?"?:)\d+/g, "$1N")
        .replace(/\b[0-9a-f]{16}\b/g, "HASH");
    const problems = steps.flatMap((step, i) => {
      const output = mask(printed[i] ?? "").split("\n");
      const why = mismatch(step.shown.map(mask), output);
      return why ? [`$ ${step.command}\n${why}\n--- printed:\n${output.join("\n")}`] : [];
    });
    expect(problems.join("\n\n")).toBe("");
  }, 240_000);
});
