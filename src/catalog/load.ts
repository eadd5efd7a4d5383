/**
 * Loads catalog folders: every `.yaml`, `.yml` and `.json` file in them (not
 * recursive), in name order, each validated against the catalog schema. A
 * malformed file is a startup error that names the file and the field.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import type { parse } from "yaml";
import { formatPath } from "../config/env.js";
import { ConfigError } from "../util/errors.js";
import { writeFileAtomic } from "../util/files.js";
import { lazyRequire } from "../util/lazy-require.js";
import { catalogFileSchema, type CatalogEntry } from "./schema.js";

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);
/** yaml, read only when a file has no parsed copy yet. */
const yaml = lazyRequire<{ parse: typeof parse }>("yaml");

/** One entry with where it came from; `server` is the file-level serverInfo glob. */
export interface LoadedEntry extends CatalogEntry {
  file: string;
  server?: string;
}

/** Loads the given folders or files in order; later entries override earlier ones. `cacheDir`: where parsed copies are kept (loadCatalogFile). */
export function loadCatalogs(paths: readonly string[], cacheDir?: string): LoadedEntry[] {
  const entries: LoadedEntry[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new ConfigError(path, "", "catalog folder or file not found");
    const files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => EXTENSIONS.has(extname(name)) && !name.endsWith(".schema.json"))
          .sort()
          .map((name) => join(path, name))
      : [path];
    for (const file of files) entries.push(...loadCatalogFile(file, cacheDir));
  }
  return entries;
}

/**
 * One file's entries. With `cacheDir`, a file read and validated before
 * (same size and modification time) is taken from its parsed copy there:
 * YAML parsing and validation cost tens of milliseconds at every start of
 * every command, for files that seldom change.
 */
export function loadCatalogFile(file: string, cacheDir?: string): LoadedEntry[] {
  const stat = statSync(file);
  const stamp = `${stat.size}:${stat.mtimeMs}`;
  const cached = cacheDir ? join(cacheDir, `${createHash("sha256").update(file).digest("hex").slice(0, 16)}.json`) : undefined;
  if (cached) {
    try {
      const copy = JSON.parse(readFileSync(cached, "utf8")) as { stamp: string; entries: LoadedEntry[] };
      if (copy.stamp === stamp && Array.isArray(copy.entries)) return copy.entries;
    } catch {
      // No copy yet, or a damaged one: read the file itself.
    }
  }
  const entries = parseCatalogFile(file);
  if (cached) {
    try {
      mkdirSync(dirname(cached), { recursive: true });
      writeFileAtomic(cached, JSON.stringify({ stamp, entries }));
    } catch {
      // A copy is only a shortcut.
    }
  }
  return entries;
}

function parseCatalogFile(file: string): LoadedEntry[] {
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = extname(file) === ".json" ? JSON.parse(text) : yaml().parse(text);
  } catch (error) {
    throw new ConfigError(file, "", `cannot parse: ${(error as Error).message}`);
  }
  const result = catalogFileSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const detail = issue.code === "unrecognized_keys" ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}` : issue.message;
    throw new ConfigError(file, formatPath(issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))), detail);
  }
  const { server, tools } = result.data;
  return tools.map((entry) => ({ ...entry, file, server }));
}
