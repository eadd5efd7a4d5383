// How the command is bundled (scripts/bundle.mjs), shared with the test of what a command evaluates
// (test/e2e/cli-loads.test.ts): one CommonJS script, dist/bundle/main.cjs, compiled from V8's code cache at start
// (src/cli/code-cache.ts; Node 20 has no compile cache for ES modules). esbuild evaluates a module reached by
// import() only when that import runs, so what a command alone needs costs nothing to the others.
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

export const bundleOptions = {
  absWorkingDir: ROOT,
  entryPoints: ["dist/cli/main.js"],
  outfile: "dist/bundle/main.cjs",
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  // Strings, templates and patterns are written in ASCII (asciiOnly does the comments).
  charset: "ascii",
  // The modules' own URL (package root, workers, data files) is the bundle's.
  inject: ["scripts/import-meta-url.mjs"],
  define: { "import.meta.url": "__metatoolsModuleUrl" },
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
    // Required at their first use (src/util/lazy-require.ts), and by the SDK's own validator: one copy, from node_modules.
    "ajv",
    "ajv/*",
    "ajv-formats",
    "yaml",
    "re2js",
  ],
  logLevel: "warning",
};

/**
 * The bundle in ASCII: esbuild escapes every string, template and pattern,
 * but the comments it keeps may hold any text. Each code unit past ASCII
 * becomes a \u escape (what it stands for inside a literal; in a comment
 * it is only text). An ASCII bundle is read as one-byte text at each start
 * (src/cli/code-cache.ts), a third of the time of decoding UTF-8 into a
 * two-byte string.
 */
export function asciiOnly(text) {
  return text.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
