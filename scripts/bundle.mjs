// Bundles the command (dist/cli/main.js and what it imports) into one file, dist/cli.mjs: a start that
// resolves and reads one module instead of hundreds. Run by `npm run build`, after tsc.
import { chmodSync } from "node:fs";
import { build } from "esbuild";

await build({
  entryPoints: ["dist/cli/main.js"],
  outfile: "dist/cli.mjs",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // Loaded only when asked for (optional peers, exporters, Redis and SQLite clients), or reading files beside their own code (tree-sitter's wasm).
  external: ["@energetic-ai/*", "@huggingface/transformers", "onnxruntime-node", "js-tiktoken", "js-tiktoken/*", "@keyv/redis", "@keyv/sqlite", "@opentelemetry/sdk-node", "web-tree-sitter"],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __metatoolsRequire } from 'node:module'; const require = __metatoolsRequire(import.meta.url);" },
  logLevel: "warning",
});
chmodSync("dist/cli.mjs", 0o755);
