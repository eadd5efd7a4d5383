/**
 * Per test file: the temporary folders its tests made (tempDir) are removed
 * when they end, so a run leaves nothing behind in the temp folder.
 */
import { rmSync } from "node:fs";
import { afterAll } from "vitest";
import { madeDirs } from "./temp-dir.js";

afterAll(() => {
  for (const dir of madeDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // A child still writing there as it exits: the system's temp cleaner has it.
    }
  }
  madeDirs.clear();
});
