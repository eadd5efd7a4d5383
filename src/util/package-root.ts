/**
 * The folder of metatools' own package.json: where `catalog/`, `models/`
 * and `dist/` are. Found by walking up from this module, so the answer is
 * the same from the TypeScript sources, the compiled `dist/` files and the
 * bundled command (`dist/cli.mjs`).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === "metatools") return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`metatools' package.json was not found above ${fileURLToPath(import.meta.url)}: the install is incomplete`);
    dir = up;
  }
}

export const PACKAGE_ROOT = findRoot();

/** The command people run (package.json's bin). */
export const CLI_ENTRY = join(PACKAGE_ROOT, "dist", "cli.mjs");
