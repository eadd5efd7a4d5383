/**
 * Global setup: every test, and every CLI or server child it starts, keeps
 * embeddings (search is hybrid by default) in a temporary cache folder,
 * never in the user's own ~/.cache. Removed when the run ends. And how the
 * runner was launched (`npx vitest` sets npm_command=exec) does not change
 * the command lines the CLI prints (src/cli/command-line.ts selfCommand).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "metatools-test-cache-"));
  process.env.XDG_CACHE_HOME = dir;
  // And the audit trail of every run_tool call (its default file is in the state folder).
  process.env.XDG_STATE_HOME = join(dir, "state");
  delete process.env.npm_command;
  return () => rmSync(dir, { recursive: true, force: true });
}
