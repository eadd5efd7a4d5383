// Bundles the command (dist/cli/main.js and what it imports) into one CommonJS script, dist/bundle/main.cjs: a
// start that reads one file, compiled from V8's code cache (scripts/bundle-options.mjs). dist/cli.mjs, the package's
// bin, starts it (src/cli/start.ts). Run by `npm run build`, after tsc.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { build } from "esbuild";
import { asciiOnly, bundleOptions } from "./bundle-options.mjs";

rmSync("dist/bundle", { recursive: true, force: true });
const { outputFiles } = await build({ ...bundleOptions, write: false });
for (const { path, text } of outputFiles) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, asciiOnly(text), { mode: 0o755 });
}
writeFileSync(
  "dist/cli.mjs",
  [
    "#!/usr/bin/env node",
    'import { fileURLToPath } from "node:url";',
    'import { start } from "./cli/start.js";',
    "",
    'await start(fileURLToPath(new URL("./bundle/main.cjs", import.meta.url)));',
    "",
  ].join("\n"),
);
chmodSync("dist/cli.mjs", 0o755);
