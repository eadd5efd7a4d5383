/**
 * Global setup: the tests run the optional engines for real (the sentence
 * encoders, the SQLite store, the benchmark's tokenizer; and the MCP
 * Inspector, which test/e2e/docs-walk.test.ts drives), which a plain
 * `npm ci` leaves out (they are the workspace in optional/). Stop at once,
 * naming the install command, rather than fail test by test with the
 * product's advice to `npm install` each package.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

export default function setup(): void {
  const manifest = new URL("../../optional/package.json", import.meta.url);
  const { dependencies } = JSON.parse(readFileSync(manifest, "utf8")) as { dependencies: Record<string, string> };
  const require = createRequire(new URL("../../package.json", import.meta.url));
  // Looked up as src/ finds them, by folder: not every package exports its package.json.
  const installed = (name: string) => (require.resolve.paths(name) ?? []).some((dir) => existsSync(join(dir, name, "package.json")));
  const missing = Object.keys(dependencies).filter((name) => !installed(name));
  if (missing.length)
    throw new Error(
      `the tests need the optional engines, and ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} not installed: ` +
        "run `npm ci --workspaces --include-workspace-root` (plain `npm ci` leaves out the workspace in optional/)",
    );
}
