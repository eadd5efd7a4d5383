/**
 * Starts the bundled command with V8's code cache. Reading and compiling
 * the command's code took a third of a CLI search's time, and Node 20 has
 * no compile cache (module.enableCompileCache came in 22.1). So the bundle
 * is one CommonJS script (scripts/bundle.mjs), compiled here with the data
 * V8 produced after an earlier run: the functions that run used come
 * compiled. After a run that had no cache, or whose cache V8 refused (a
 * new bundle or another Node), the run's compiled code is written for the
 * next one.
 *
 * The cache is code, so it is taken only from a file this user owns that
 * nobody else may write, in a folder of the user's cache; a file that is
 * not is left alone, and the command compiles its source as usual.
 * METATOOLS_CODE_CACHE=0 turns the cache off.
 */
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
import { cacheHome } from "../util/cache-home.js";
import { writeFileAtomic } from "../util/files.js";
import { IMPORT_HOOK } from "../util/import-external.js";

/** Cache files kept (one per bundle and Node): a clone and an installed copy both stay warm. */
const KEEP = 4;

/** Runs the CommonJS bundle `file` as the main program. */
export function runBundle(file: string, env: NodeJS.ProcessEnv = process.env): void {
  // Code compiled by node:vm cannot import() on Node 20 without a flag: an import the bundle leaves to Node comes here (util/import-external.ts).
  (globalThis as Record<symbol, unknown>)[IMPORT_HOOK] = (specifier: string) => import(specifier);
  const source = readSource(file);
  const cacheFile = env.METATOOLS_CODE_CACHE === "0" ? undefined : cachePath(file, env);
  const cached = cacheFile ? readOwn(cacheFile) : undefined;
  const script = new Script(Module.wrap(source), { filename: file, cachedData: cached });
  if (cacheFile && (!cached || script.cachedDataRejected)) process.once("exit", () => writeCache(cacheFile, () => script.createCachedData()));
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
}

/** The bundle's text: one-byte when it is ASCII (as scripts/bundle.mjs writes it), which V8 reads and hashes faster. */
function readSource(file: string): string {
  const bytes = readFileSync(file);
  return (isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")).replace(/^#!.*/, "");
}

/** Where the cache of `file` under this Node is kept: named by the bundle's path, size and time, and Node's version. */
export function cachePath(file: string, env: NodeJS.ProcessEnv = process.env): string {
  const { size, mtimeMs } = statSync(file);
  const key = createHash("sha256").update(`${file}\0${size}\0${mtimeMs}\0${process.version}\0${process.arch}`).digest("hex").slice(0, 16);
  return join(cacheHome(env), "code", `${basename(file)}.${key}.v8`);
}

/** The file's bytes when it is a file (not a link) this user owns and nobody else may write; else undefined. */
function readOwn(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if (!stat.isFile() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Writes the cache (readable by this user only), and drops the oldest beyond KEEP. Never throws: it runs as the process exits. */
function writeCache(path: string, produce: () => Buffer): void {
  try {
    const dir = dirname(path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(path, produce(), 0o600);
    const others = readdirSync(dir)
      .filter((name) => name.endsWith(".v8"))
      .map((name) => ({ name, time: statSync(join(dir, name)).mtimeMs }))
      .sort((a, b) => b.time - a.time);
    for (const old of others.slice(KEEP)) rmSync(join(dir, old.name), { force: true });
  } catch {
    // A cache is only a shortcut: the next run compiles as this one did.
  }
}
