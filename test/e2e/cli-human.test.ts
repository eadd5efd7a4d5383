/**
 * The CLI as a person uses it in their first hour, the built binary in a
 * child process against the public everything and filesystem servers: the
 * commands it suggests can be pasted into a shell and work; `run --out`
 * writes the file the result is (a PNG's bytes, a file's text); every flag
 * a command declares is in its --help; `index` tells each namespace once
 * and starts no server it has a snapshot of.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { flagWords } from "../../src/cli/flags.js";
import { loadCommands } from "../../src/cli/registry.js";
import { CLI, pasteCli, runCli } from "../helpers/cli.js";
import { servers, tempDir } from "../helpers/harness.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function project(): string {
  const dir = tempDir();
  writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { everything: servers.everything(), fs: servers.filesystem(dir) } }));
  writeFileSync(join(dir, "hello.txt"), "hello from a file\n");
  return dir;
}

/** The command a line of guidance on stderr (`hint: …`, `next: …`) names. */
function lineOf(stderr: string, prefix: string): string {
  const line = stderr.split("\n").find((l) => l.startsWith(prefix));
  expect(line, `a line starting "${prefix}" in:\n${stderr}`).toBeDefined();
  return line!.slice(prefix.length).trim();
}

describe("metatools run --out", () => {
  it("writes the PNG an image tool returns, and says what it wrote", async () => {
    const dir = project();
    const ran = await runCli(["run", "everything:get-tiny-image", "--out", "img.png"], { cwd: dir });
    expect(ran.code).toBe(0);
    const bytes = readFileSync(join(dir, "img.png"));
    expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(ran.stdout).toBe("");
    expect(ran.stderr).toContain(`wrote img.png: image (image/png), ${bytes.length} bytes`);

    const json = await runCli(["run", "everything:get-tiny-image", "--out", "again.png", "--json"], { cwd: dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, written: { file: "again.png", kind: "image", mimeType: "image/png", bytes: bytes.length } });
    expect(readFileSync(join(dir, "again.png"))).toEqual(bytes);
  });

  it("writes a text file's text, small or over the inline budget", async () => {
    const dir = project();
    const ran = await runCli(["run", "fs:read_text_file", "--args", JSON.stringify({ path: join(dir, "hello.txt") }), "--out", "copy.txt"], { cwd: dir });
    expect(ran.code).toBe(0);
    expect(readFileSync(join(dir, "copy.txt"), "utf8")).toBe("hello from a file\n");
    expect(ran.stderr).toContain("wrote copy.txt: text, 18 bytes");

    const big = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    writeFileSync(join(dir, "big.txt"), big);
    const large = await runCli(["run", "fs:read_text_file", "--args", JSON.stringify({ path: join(dir, "big.txt") }), "--out", "big-copy.txt"], { cwd: dir });
    expect(large.code).toBe(0);
    expect(readFileSync(join(dir, "big-copy.txt"), "utf8")).toBe(big);
  });

  it("writes nothing when the call fails", async () => {
    const dir = project();
    const ran = await runCli(["run", "fs:read_text_file", "--args", JSON.stringify({ path: join(dir, "missing.txt") }), "--out", "none.txt"], { cwd: dir });
    expect(ran.code).toBe(1);
    expect(existsSync(join(dir, "none.txt"))).toBe(false);
  });
});

describe("the CLI speaks CLI", () => {
  it("counts one match as one tool, not one tools", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tools.jsonl"), JSON.stringify({ id: "weather_now", name: "weather_now", description: "Current forecast for a city." }));
    writeFileSync(
      join(dir, "metatools.json"),
      JSON.stringify({
        mcpServers: { notes: { type: "catalog", tools: join(dir, "tools.jsonl") } },
        metatools: { code: { enabled: false }, search: { embedder: false } },
      }),
    );
    const one = await runCli(["search", "forecast", "--namespace", "notes"], { cwd: dir });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^1 matching tool; showing 1 from 1/m);
  });

  it("run as node and a path (metatools not on the PATH) with --config elsewhere, prints lines that start so and work pasted in a plain shell", async () => {
    const dir = project();
    const elsewhere = tempDir();
    // The PATH without the test run's own `metatools` (test/helpers/cache-home.ts): as in a clone never installed.
    const PATH = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((d) => !existsSync(join(d, "metatools")))
      .join(delimiter);
    const config = join(dir, "metatools.json");
    const search = await runCli(["--config", config, "search", "read file", "--limit", "1"], { cwd: elsewhere, env: { PATH } });
    expect(search.code, search.stderr).toBe(0);
    const next = lineOf(search.stderr, "next:");
    expect(next.startsWith(`node ${CLI} --config ${config} search 'read file' --limit 1 `)).toBe(true);
    const pasted = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn("sh", ["-c", next], { cwd: elsewhere, env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${PATH}` } });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d));
      child.on("close", (code) => resolve({ code, out }));
    });
    expect(pasted.code).toBe(0);
    expect(pasted.out).toMatch(/matching tools/);
  });

  it("prints every suggested call as a command line that works when pasted; --json keeps the agent's form", async () => {
    const dir = project();
    // A search with more hits than shown: its hint and next are searches to paste.
    const search = await runCli(["search", "read file", "--limit", "1"], { cwd: dir });
    expect(search.code).toBe(0);
    expect(search.stderr).not.toMatch(/search_tools\(|describe_tool\(|run_tool\(/);
    const next = lineOf(search.stderr, "next:");
    expect(next).toMatch(/^metatools search 'read file' --limit 1 /);
    // The hint names the way on by `next` (printed whole on its own line) instead of writing the query out again.
    expect(lineOf(search.stderr, "hint:")).toMatch(/: next\b/);
    const pasted = await pasteCli(next, { cwd: dir });
    expect(pasted.code).toBe(0);
    expect(pasted.stdout).toMatch(/matching tools/);

    const json = await runCli(["search", "read file", "--limit", "1", "--json"], { cwd: dir });
    const body = JSON.parse(json.stdout);
    // The agent's form: the hint points at next, which holds the call whole.
    expect(body.hint).toMatch(/: next\b/);
    expect(body.hint).not.toContain("metatools search");
    expect(body.next).toMatchObject({ tool: "search_tools", arguments: { query: "read file", limit: 1 } });

    // A mistyped id: the ready call describes the right tool.
    const typo = await runCli(["run", "fs:read_text_fil"], { cwd: dir });
    expect(typo.code).toBe(1);
    const ready = lineOf(typo.stderr, "hint:").match(/Ready call: (metatools describe \S+)/)?.[1];
    expect(ready).toBe("metatools describe fs:read_text_file");
    const described = await pasteCli(ready!, { cwd: dir });
    expect(described.stdout).toMatch(/^fs:read_text_file/);

    // Wrong arguments: the corrected call runs as pasted, JSON quoted for the shell.
    const wrong = await runCli(["run", "fs:read_text_file", "--args", JSON.stringify({ paht: join(dir, "hello.txt") })], { cwd: dir });
    expect(wrong.code).toBe(1);
    const corrected = lineOf(wrong.stderr, "next:");
    expect(corrected).toBe(`metatools run fs:read_text_file --args '${JSON.stringify({ path: join(dir, "hello.txt") })}'`);
    const fixed = await pasteCli(corrected, { cwd: dir });
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toContain("hello from a file");

    // A catalog example in the full docs runs as printed.
    const full = await runCli(["describe", "everything:echo", "--detail", "full"], { cwd: dir });
    const example = full.stdout.split("\n").find((l) => l.trim().startsWith("metatools run everything:echo"));
    expect(example).toBeDefined();
    const echoed = await pasteCli(example!.trim(), { cwd: dir });
    expect(echoed.code).toBe(0);
    expect(echoed.stdout).toContain("hello");
  });

  it("names every flag each command declares, with its help, in its --help", async () => {
    for (const command of await loadCommands()) {
      const help = await runCli([command.name, "--help"]);
      expect(help.code).toBe(0);
      const text = help.stdout.replace(/\s+/g, " ");
      for (const [name, spec] of Object.entries(command.flags)) {
        expect(help.stdout, `metatools ${command.name} --help`).toContain(`\n  ${flagWords(name, spec)}`);
        expect(text, `the help of --${name} in metatools ${command.name} --help`).toContain(spec.help);
      }
    }
    expect((await runCli(["run", "--help"])).stdout).toMatch(/--out FILE\s+writes[^]*image/);
  });
});

describe("metatools index", () => {
  it("tells each namespace once with its count, and starts only servers it has no snapshot of", async () => {
    const dir = tempDir();
    const log = join(dir, "starts.log");
    // Each server notes its start in the log, then becomes the real server.
    const noted = ({ command, args }: { command: string; args: string[] }) => ({
      command: "sh",
      args: ["-c", 'echo started >> "$0"; exec "$@"', log, command, ...args],
    });
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { everything: noted(servers.everything()), fs: noted(servers.filesystem(dir)) } }));
    const env = { XDG_CACHE_HOME: tempDir() };
    const starts = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean).length : 0);
    const told = (stderr: string) => [...stderr.matchAll(/^indexed (\S+): (\d+) tools$/gm)].map((m) => [m[1]!, Number(m[2])] as const);

    const listed = await runCli(["search", "", "--json", "--limit", "1", "--refresh"], { cwd: dir, env });
    const counts = Object.fromEntries((JSON.parse(listed.stdout).by_namespace as { namespace: string; count: number }[]).map((n) => [n.namespace, n.count]));
    expect(starts()).toBe(2);

    for (const [argv, started] of [
      [["index"], 0],
      [["index", "--refresh"], 2],
    ] as const) {
      const before = starts();
      const ran = await runCli([...argv], { cwd: dir, env });
      expect(ran.code, ran.stderr).toBe(0);
      expect(starts() - before, `servers started by ${argv.join(" ")}`).toBe(started);
      const lines = told(ran.stderr);
      expect(lines.map(([ns]) => ns).sort()).toEqual(["code", "everything", "fs"]);
      for (const [ns, count] of lines) expect(count, ns).toBe(counts[ns]);
      expect(ran.stdout).toMatch(/^indexed \d+ tools in 3 namespaces/);
      if (!started) expect(ran.stdout).toContain("from the snapshot of their last tool list");
    }
  });
});
