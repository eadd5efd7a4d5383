/**
 * Global setup: every test, and every CLI or server child it starts, keeps
 * embeddings (search is hybrid by default) in a temporary cache folder,
 * never in the user's own ~/.cache. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), "metatools-test-cache-"));
  process.env.XDG_CACHE_HOME = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
