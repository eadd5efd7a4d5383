/**
 * Global setup: every test, and every CLI or server child it starts, keeps
 * embeddings (search is hybrid by default) in a temporary cache folder,
 * never in the user's own ~/.cache. Removed when the run ends. And how the
 * runner was launched (`npx vitest` sets npm_command=exec) does not change
 * the command lines the CLI prints (src/cli/command-line.ts selfCommand),
 * and `metatools` on the PATH is the built CLI, as after `npm install -g`: the
 * lines it prints start with `metatools` (a test that removes it from the
 * PATH sees `node …/dist/cli.mjs`).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { CLI } from "./cli.js";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "metatools-test-cache-"));
  process.env.XDG_CACHE_HOME = dir;
  // And the audit trail of every run_tool call (its default file is in the state folder).
  process.env.XDG_STATE_HOME = join(dir, "state");
  delete process.env.npm_command;
  const bin = join(dir, "bin");
  mkdirSync(bin);
  symlinkSync(CLI, join(bin, "metatools"));
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ""}`;
  return () => rmSync(dir, { recursive: true, force: true });
}
