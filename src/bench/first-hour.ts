/**
 * The first hour's waits, each beside `node -e 0` measured in the same run:
 *
 * - A client's stdio handshake: spawn of `metatools serve` to `initialize`
 *   answered, over three backends that take 5 s to start, one that never
 *   answers and one whose command does not exist; the first launch (nothing
 *   kept) and the next ones (the last launch's answer kept).
 * - `metatools search` from the snapshot with an empty cache folder, and
 *   with 64 MB of embeddings other configs left there; and without the
 *   code cache (METATOOLS_CODE_CACHE=0), beside it.
 */
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { loadBuiltinEmbedder } from "../embed/builtin.js";
import { CLI_ENTRY, PACKAGE_ROOT } from "../util/package-root.js";
import { cliSearch } from "./measure.js";
import { syntheticTools, toJsonl } from "./synthetic.js";

const SLOW_BACKEND = join(PACKAGE_ROOT, "dist", "bench", "slow-backend.js");

export interface FirstHourResult {
  runs: number;
  /** `node -e 0`, spawn to exit. */
  nodeMs: number;
  /** Spawn to `initialize` answered, the first launch of a config (nothing kept yet). */
  firstHandshakeMs: number;
  /** The same, the launches after it (the last launch's answer kept). */
  handshakeMs: number;
  /** `metatools search` from the snapshot, spawn to exit, with an empty cache folder. */
  searchMs: number;
  /** The same with a 64 MB embedding cache of other configs in the folder. */
  searchFullCacheMs: number;
  /** The same as searchMs with the code cache off: the bundle compiled from its source at every start. */
  searchNoCodeCacheMs: number;
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
};
/** What other configs (or `eval` runs) may leave in the embedding cache: the default cap. */
const FOREIGN_CACHE_BYTES = 64 * 1024 * 1024;

export async function firstHour(dir: string, runs: number, servers: { everything: string; filesystem: string }): Promise<FirstHourResult> {
  const nodeMs = median(Array.from({ length: runs }, () => timed(() => spawnSync(process.execPath, ["-e", "0"], { stdio: "ignore" }))));

  const toolsFile = join(dir, "first-hour-tools.jsonl");
  writeFileSync(toolsFile, toJsonl(syntheticTools(20)));
  const slow = (n: number) => ({ command: process.execPath, args: [SLOW_BACKEND, toolsFile, "5000", `slow-${n}`] });
  const config = join(dir, "first-hour.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        slow1: slow(1),
        slow2: slow(2),
        slow3: slow(3),
        silent: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] },
        missing: { command: "metatools-bench-no-such-command" },
      },
      metatools: { code: { enabled: false }, security: { lockFile: false } },
    }),
  );
  const env = { ...process.env, XDG_CACHE_HOME: join(dir, "first-hour-cache") };
  const firstHandshakeMs = await handshake(config, env);
  const handshakes: number[] = [];
  for (let i = 0; i < runs; i++) handshakes.push(await handshake(config, env));

  const empty = await cliSearch(join(dir, "search-empty"), runs, servers);
  const full = join(dir, "search-full");
  fillForeignCache(join(full, "cli-cache", "metatools", "embeddings"), loadBuiltinEmbedder().id);
  const fullCache = await cliSearch(full, runs, servers);
  const compiled = await cliSearch(join(dir, "search-no-code-cache"), runs, servers, { METATOOLS_CODE_CACHE: "0" });
  return {
    runs,
    nodeMs,
    firstHandshakeMs,
    handshakeMs: median(handshakes),
    searchMs: empty.medianMs,
    searchFullCacheMs: fullCache.medianMs,
    searchNoCodeCacheMs: compiled.medianMs,
  };
}

/** Spawn to the first line on stdout (the answer to `initialize`); the server is then told to stop. */
function handshake(config: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI_ENTRY, "serve", "--config", config], { env, stdio: ["pipe", "pipe", "ignore"] });
    let answered: number | undefined;
    child.stdout.on("data", () => {
      if (answered !== undefined) return;
      answered = performance.now() - started;
      child.stdin.end();
    });
    child.on("error", reject);
    child.on("close", () => (answered === undefined ? reject(new Error("serve closed before answering initialize")) : resolve(answered)));
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
  });
}

/** 64 MB of the built-in embedder's vectors that are not this config's: another config's file, and the one file all configs shared before. */
function fillForeignCache(folder: string, embedderId: string): void {
  mkdirSync(folder, { recursive: true });
  const file = embedderId.replace(/[^A-Za-z0-9._-]+/g, "_");
  for (const name of [`${file}.0123456789abcdef.vec`, `${file}.vec`]) {
    const fd = openSync(join(folder, name), "w");
    try {
      const chunk = randomBytes(1 << 20);
      for (let written = 0; written < FOREIGN_CACHE_BYTES / 2; written += chunk.length) writeSync(fd, chunk);
    } finally {
      closeSync(fd);
    }
  }
}

function timed(run: () => unknown): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
