/**
 * metatools' search engine beside what a JavaScript developer would pick
 * instead: MiniSearch (BM25) and Orama (BM25, and hybrid with the same
 * vectors), over the same documents (each tool's search fields), the same
 * queries and, for hybrid, the same vectors from the built-in embedder:
 * only the engine differs. Each engine runs in a process of its own
 * (engine-child.ts), so its memory is its own.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PACKAGE_ROOT } from "../util/package-root.js";
import type { EngineMeasure, EngineMode, EngineName } from "./engine-child.js";

export interface EngineRow extends EngineMeasure {
  engine: EngineName;
  mode: EngineMode;
  tools: number;
}

/** The engines measured, metatools first in each mode (the ratios are to it). */
export const ENGINES: readonly { engine: EngineName; mode: EngineMode }[] = [
  { engine: "metatools", mode: "bm25" },
  { engine: "minisearch", mode: "bm25" },
  { engine: "orama", mode: "bm25" },
  { engine: "metatools", mode: "hybrid" },
  { engine: "orama", mode: "hybrid" },
];

const CHILD = join(PACKAGE_ROOT, "dist", "bench", "engine-child.js");

/** Every engine at every size; an engine whose package is not installed is skipped, saying so. */
export async function engineBench(sizes: readonly number[], queries: number, progress: (line: string) => void): Promise<EngineRow[]> {
  if (!existsSync(CHILD)) throw new Error(`${CHILD} is missing: build metatools first (npm run build)`);
  const rows: EngineRow[] = [];
  for (const tools of sizes) {
    for (const { engine, mode } of ENGINES) {
      progress(`${engine} ${mode} over ${tools} tools, in a process of its own…`);
      try {
        rows.push({ engine, mode, tools, ...(await measureIn(engine, mode, tools, queries)) });
      } catch (error) {
        progress(`${engine} ${mode} skipped: ${(error as Error).message}`);
      }
    }
  }
  return rows;
}

function measureIn(engine: EngineName, mode: EngineMode, tools: number, queries: number): Promise<EngineMeasure> {
  return new Promise((resolve, reject) => {
    // Bytecode is not flushed: V8 drops old functions' bytecode at a later GC, which can make what the engine holds
    // weigh less than nothing at a few hundred tools.
    const flags = ["--expose-gc", "--no-flush-bytecode", "--max-old-space-size=8192"];
    const child = spawn(process.execPath, [...flags, CHILD, engine, mode, String(tools), String(queries)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-2000)));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(/Cannot find (package|module) '([^']+)'/.exec(err)?.[0] ?? (err.trim().split("\n")[0] || `exit ${code}`)));
      try {
        resolve(JSON.parse(out) as EngineMeasure);
      } catch {
        reject(new Error(`unreadable measure: ${out.slice(0, 200)}`));
      }
    });
  });
}
