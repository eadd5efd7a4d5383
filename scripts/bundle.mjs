// Bundles the command (dist/cli/main.js and what it imports) into dist/bundle/: a start that resolves and
// reads a few modules instead of hundreds. Each command's code is a chunk of its own, loaded when that command
// runs. dist/cli.mjs, the package's bin, imports the entry. Run by `npm run build`, after tsc.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist/bundle", { recursive: true, force: true });
await build({
  entryPoints: ["dist/cli/main.js"],
  outdir: "dist/bundle",
  entryNames: "[name]",
  chunkNames: "[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Loaded only when asked for (optional peers, exporters, Redis and SQLite clients), or reading files beside their own code (tree-sitter's wasm).
  external: [
    "@energetic-ai/*",
    "@huggingface/transformers",
    "onnxruntime-node",
    "js-tiktoken",
    "js-tiktoken/*",
    "@keyv/redis",
    "@keyv/sqlite",
    "@opentelemetry/sdk-node",
    "web-tree-sitter",
  ],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __metatoolsRequire } from 'node:module'; const require = __metatoolsRequire(import.meta.url);" },
  logLevel: "warning",
});
writeFileSync("dist/cli.mjs", '#!/usr/bin/env node\nimport "./bundle/main.mjs";\n');
chmodSync("dist/cli.mjs", 0o755);
