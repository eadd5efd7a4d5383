/**
 * Temporary folders for tests, each remembered so test/helpers/cleanup.ts
 * removes it when its file's tests end. Kept apart from the harness: the
 * cleanup runs in every test file, and importing the harness would load the
 * whole app into unit tests that never use it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const madeDirs = new Set<string>();

export function tempDir(prefix = "metatools-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}
