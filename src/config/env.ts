/**
 * `${VAR}` and `${VAR:-default}` substitution over every string in the raw
 * config, before validation, so secrets stay out of the file.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../util/errors.js";

/** metatools' folder under the user's cache ($XDG_CACHE_HOME, else ~/.cache): embeddings, word vectors. */
export function cacheHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "metatools");
}

/** `${NAME}` or `${NAME:-default}`; group 1 is the name, group 2 the default. */
export const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** A value the environment supplied where secrets go; it must never be shown (see util/redact.ts). */
export interface Secret {
  name: string;
  value: string;
}

/** Where a config carries credentials: a server's env, headers, URL or arguments; the HTTP tokens; the store URL. */
function holdsSecrets(path: readonly string[]): boolean {
  if (path[0] === "mcpServers") return ["env", "headers", "url", "args"].includes(path[2] ?? "");
  return path[0] === "metatools" && ((path[1] === "http" && path[2] === "tokens") || (path[1] === "store" && path[2] === "url"));
}

export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, file: string, path: string[] = [], secrets?: Secret[]): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") {
        // Short values (a port, a flag) are not worth hiding and would blank out ordinary text.
        if (secrets && found.length >= 6 && holdsSecrets(path)) secrets.push({ name, value: found });
        return found;
      }
      if (fallback !== undefined) return fallback;
      throw new ConfigError(
        file,
        formatPath(path),
        `environment variable ${name} is not set (set it, or write \${${name}:-default} to give a default)`,
      );
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, file, [...path, String(i)], secrets));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteEnv(item, env, file, [...path, key], secrets);
    return out;
  }
  return value;
}

/** `mcpServers.github.args[2]`: how config fields are named in errors. */
export function formatPath(path: readonly (string | number | symbol)[]): string {
  let out = "";
  for (const part of path) {
    const text = String(part);
    if (typeof part === "number" || /^\d+$/.test(text)) out += `[${text}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(text)) out += out ? `.${text}` : text;
    else out += `[${JSON.stringify(text)}]`;
  }
  return out;
}
