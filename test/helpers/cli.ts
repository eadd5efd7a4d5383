import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI (`npm test` builds first), run as users run it. */
export const CLI = fileURLToPath(new URL("../../dist/cli.mjs", import.meta.url));

/** What the test runner's own environment may carry that changes the CLI's output; a test sets these itself when it means to. */
const AMBIENT = ["FORCE_COLOR", "NO_COLOR", "METATOOLS_CONFIG", "METATOOLS_TOKENS"];

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  for (const name of AMBIENT) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: { ...env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
