/**
 * How a command's process ends (src/cli/exit.ts): with nothing but the
 * standard streams open it exits once they are written, without the idle
 * end of the event loop (no beforeExit); anything else in flight finishes
 * first. Run in a child process, as the CLI ends.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";

const EXIT = new URL("../../../dist/cli/exit.js", import.meta.url).href;

/** Runs `body` (a module) after importing exitWhenQuiet, stdout and stderr piped. */
function run(body: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", `import { exitWhenQuiet } from ${JSON.stringify(EXIT)};\n${body}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const LISTENERS = `process.on("beforeExit", () => process.stderr.write("beforeExit\\n"));
process.on("exit", (code) => process.stderr.write("exit " + code + "\\n"));`;

describe("exitWhenQuiet", () => {
  it("exits as soon as stdout and stderr are written when nothing else is open, every byte delivered and exit listeners run", async () => {
    const ran = await run(`${LISTENERS}
process.stdout.write("x".repeat(4_000_000));
process.stderr.write("done\\n");
exitWhenQuiet(3);`);
    expect(ran.code).toBe(3);
    expect(ran.stdout.length).toBe(4_000_000);
    expect(ran.stderr).toBe("done\nexit 3\n");
  });

  it("leaves a timer, a file read or a child to finish first, the loop ending as usual", async () => {
    const ran = await run(`${LISTENERS}
import { readFile } from "node:fs";
import { spawn } from "node:child_process";
setTimeout(() => process.stderr.write("timer\\n"), 20);
readFile(process.execPath, () => process.stderr.write("read\\n"));
spawn(process.execPath, ["-e", "0"]).on("exit", () => process.stderr.write("child\\n"));
exitWhenQuiet(0);`);
    expect(ran.code).toBe(0);
    expect(ran.stderr.split("\n").filter(Boolean).sort()).toEqual(["beforeExit", "child", "exit 0", "read", "timer"]);
    expect(ran.stderr.endsWith("beforeExit\nexit 0\n")).toBe(true);
  });
});
