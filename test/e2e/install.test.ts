/**
 * The quick start's `npm ci`, run for real on a copy of the manifests: it
 * installs what the default product needs and not the optional engines
 * (transformers.js and onnxruntime, the sentence encoder, SQLite, the
 * Redis client, the OpenTelemetry SDK, the benchmark tokenizer), stays
 * small, and npm says nothing about the project's own config or Node.js
 * version.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/harness.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const HEAVY = [
  "onnxruntime-node",
  "sharp",
  "sqlite3",
  "@huggingface/transformers",
  "@energetic-ai/core",
  "@keyv/sqlite",
  "js-tiktoken",
  "@modelcontextprotocol/inspector",
  "@keyv/redis",
  "@opentelemetry/sdk-node",
];

function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

describe("the quick start's npm ci", () => {
  it("leaves out the optional engines, stays under 250 MB, and warns nothing about the project's npm config or a Node.js version", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "optional"));
    for (const file of ["package.json", "package-lock.json", ".npmrc", "optional/package.json"]) copyFileSync(join(ROOT, file), join(dir, file));
    // No build here (the tests' own install ran it): only what npm fetches and lays out.
    const ran = spawnSync("npm", ["ci", "--ignore-scripts", "--prefer-offline"], { cwd: dir, encoding: "utf8", timeout: 300_000 });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr).not.toMatch(/Unknown (project|user|env) config/);
    // Nothing in the lockfile asks for a newer Node.js than the project does (npm warns even of what it leaves out).
    expect(ran.stderr).not.toContain("EBADENGINE");
    const modules = join(dir, "node_modules");
    for (const name of HEAVY) expect(existsSync(join(modules, name)), `${name} is installed`).toBe(false);
    for (const name of ["@modelcontextprotocol/sdk", "web-tree-sitter", "keyv", "re2js"])
      expect(existsSync(join(modules, name)), `${name} is missing`).toBe(true);
    const mb = bytesUnder(modules) / 1e6;
    console.log(`quick-start install: ${mb.toFixed(0)} MB in node_modules`);
    expect(mb).toBeLessThan(250);
  }, 320_000);
});
