import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built CLI (`npm test` builds first), run as users run it. */
export const CLI = fileURLToPath(new URL("../../dist/cli.mjs", import.meta.url));

/** What the test runner's own environment may carry that changes the CLI's output; a test sets these itself when it means to. */
const AMBIENT = ["FORCE_COLOR", "NO_COLOR", "METATOOLS_CONFIG", "METATOOLS_TOKENS", "METATOOLS_CODE_CACHE"];

type Ran = { code: number; stdout: string; stderr: string };
type Options = { cwd?: string; env?: NodeJS.ProcessEnv };

export function runCli(args: string[], options: Options = {}): Promise<Ran> {
  return collect(spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: envFor(options), stdio: ["ignore", "pipe", "pipe"] }));
}

/** A command line as a person pastes it into a POSIX shell, `metatools` being the built CLI. */
export function pasteCli(line: string, options: Options = {}): Promise<Ran> {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  const script = `metatools() { ${quote(process.execPath)} ${quote(CLI)} "$@"; }\n${line}\n`;
  return collect(spawn("sh", ["-c", script], { cwd: options.cwd, env: envFor(options), stdio: ["ignore", "pipe", "pipe"] }));
}

function envFor(options: Options): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of AMBIENT) delete env[name];
  return { ...env, ...options.env };
}

function collect(child: ChildProcess): Promise<Ran> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d));
    child.stderr!.on("data", (d: Buffer) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
