/**
 * Loads catalog folders: every `.yaml`, `.yml` and `.json` file in them (not
 * recursive), in name order, each validated against the catalog schema. A
 * malformed file is a startup error that names the file and the field.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parse as parseYaml } from "yaml";
import { formatPath } from "../config/env.js";
import { ConfigError } from "../util/errors.js";
import { catalogFileSchema, type CatalogEntry } from "./schema.js";

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/** One entry with where it came from; `server` is the file-level serverInfo glob. */
export interface LoadedEntry extends CatalogEntry {
  file: string;
  server?: string;
}

/** Loads the given folders or files in order; later entries override earlier ones. */
export function loadCatalogs(paths: readonly string[]): LoadedEntry[] {
  const entries: LoadedEntry[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new ConfigError(path, "", "catalog folder or file not found");
    const files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((name) => EXTENSIONS.has(extname(name)) && !name.endsWith(".schema.json"))
          .sort()
          .map((name) => join(path, name))
      : [path];
    for (const file of files) entries.push(...loadCatalogFile(file));
  }
  return entries;
}

export function loadCatalogFile(file: string): LoadedEntry[] {
  const text = readFileSync(file, "utf8");
  let raw: unknown;
  try {
    raw = extname(file) === ".json" ? JSON.parse(text) : parseYaml(text);
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
