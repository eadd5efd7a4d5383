/**
 * `metatools program` in real CLI processes, with the public everything and
 * filesystem servers: a program from a file or from --code, its value on
 * stdout and its trace on stderr; a failing one exits 1 with its line;
 * a FIFO is refused, not waited on; a secret from the environment that a
 * tool's result carries reaches the program redacted; and a profile's deny
 * is the program's error.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { servers, tempDir } from "../../helpers/harness.js";

const SECRET = "tok-program-4c1d9e7a2b8f";

let dir: string;
let config: string;

beforeAll(() => {
  dir = tempDir();
  writeFileSync(join(dir, "a.txt"), "TODO one\nfine\nTODO two\n");
  writeFileSync(join(dir, "b.txt"), "TODO three\n");
  config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: { ...servers.everything(), env: { API_TOKEN: "${PROGRAM_SECRET}" } }, files: servers.filesystem(dir) },
      metatools: { code: { enabled: false }, profiles: { default: { approvals: { tools: { "files:write_file": "deny" } } } } },
    }),
  );
});

const env = { PROGRAM_SECRET: SECRET };

describe("metatools program", () => {
  it("runs a program from a file with --input: its value on stdout, its log lines and calls on stderr", async () => {
    const file = join(dir, "count.js");
    writeFileSync(
      file,
      `const names = ["a.txt", "b.txt"];
console.log("reading", names.length);
const texts = await Promise.all(names.map((n) => tools.call("files:read_text_file", { path: input.dir + "/" + n })));
return texts.reduce((sum, t) => sum + t.content.split("\\n").filter((l) => l.includes("TODO")).length, 0);`,
    );
    const ran = await runCli(["program", file, "--input", JSON.stringify({ dir }), "--config", config], { env });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe("3\n");
    expect(ran.stderr).toContain("log: reading 2");
    expect(ran.stderr).toMatch(/files:read_text_file\s+2\s+\d+\s+miss\s+ok/);
    expect(ran.stderr).toContain("2 calls");
  }, 60_000);

  it("runs one from --code; --json gives the whole reply", async () => {
    const ran = await runCli(["program", "--code", "return [1, 2, 3].map((n) => n * 2);", "--config", config, "--json"], { env });
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true, tool_id: "metatools:run_program", structured: { result: [2, 4, 6], program: { trace: [] } } });
  }, 60_000);

  it("exits 1 on a program that throws, naming its line, with the calls it made", async () => {
    const ran = await runCli(
      ["program", "--code", 'await tools.call("files:list_allowed_directories", {});\nthrow new Error("stop here");', "--config", config],
      { env },
    );
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain("program_error");
    expect(ran.stderr).toContain("line 2");
    expect(ran.stderr).toContain("stop here");
    expect(ran.stderr).toMatch(/files:list_allowed_directories\s+1\s+\d+\s+\S*\s*ok/);
  }, 60_000);

  it("refuses a FIFO as the program file at once, and a missing file, with a usage error", async () => {
    const fifo = join(dir, "program.fifo");
    execFileSync("mkfifo", [fifo]);
    const ran = await runCli(["program", fifo, "--config", config]);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain("is not a regular file");
    const missing = await runCli(["program", join(dir, "nope.js"), "--config", config]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot read the program");
  }, 30_000);

  it("hands the program a result redacted, and a denied tool as its error", async () => {
    const ran = await runCli(
      [
        "program",
        "--code",
        `const env = await tools.call("everything:get-env", {});
let denied;
try { await tools.call("files:write_file", { path: input.file, content: "x" }); } catch (e) { denied = e.code; }
return { env: JSON.stringify(env), denied };`,
        "--input",
        JSON.stringify({ file: join(dir, "denied.txt") }),
        "--config",
        config,
        "--json",
      ],
      { env },
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { env: seen, denied } = JSON.parse(ran.stdout).structured.result as { env: string; denied: string };
    expect(seen).toContain("[redacted $PROGRAM_SECRET]");
    expect(ran.stdout + ran.stderr).not.toContain(SECRET);
    expect(denied).toBe("denied");
  }, 60_000);
});
