/**
 * `${VAR}` and `${VAR:-default}` substitution over every string in the raw
 * config, before validation, so secrets stay out of the file.
 */
import { ConfigError } from "../util/errors.js";
import { secretsOf, type Secret } from "./secrets.js";

export { cacheHome } from "../util/cache-home.js";

/** `${NAME}` or `${NAME:-default}`; group 1 is the name, group 2 the default. */
export const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type { Secret } from "./secrets.js";

/**
 * Replaces every reference in `value`, a raw config, before validation.
 * With `secrets`, collects the values that are secrets (config/secrets.ts
 * says which), and refuses one too short to redact. `previous` is the item
 * before `value` in its array, so `["--token", "${T}"]` is known for what it is.
 */
export function substituteEnv(value: unknown, env: NodeJS.ProcessEnv, file: string, path: string[] = [], secrets?: Secret[], previous?: unknown): unknown {
  if (typeof value === "string") {
    return value.replace(REFERENCE, (match, name: string, fallback: string | undefined, offset: number) => {
      const found = env[name];
      if (found !== undefined && found !== "") {
        if (secrets) {
          const at = { path, template: value, start: offset, end: offset + match.length, previous: typeof previous === "string" ? previous : undefined };
          secrets.push(...secretsOf(name, found, at, file, formatPath(path)));
        }
        return found;
      }
      if (fallback !== undefined) return fallback;
      throw new UnsetVariableError(file, formatPath(path), name);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => substituteEnv(item, env, file, [...path, String(i)], secrets, value[i - 1]));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = substituteEnv(item, env, file, [...path, key], secrets);
    return out;
  }
  return value;
}

/** A `${NAME}` with no value and no default: a server's entry that names one is not started (needs_config), the rest of the config is refused. */
export class UnsetVariableError extends ConfigError {
  constructor(
    file: string,
    field: string,
    readonly variable: string,
  ) {
    super(file, field, `environment variable ${variable} is not set (set it, or write \${${variable}:-default} to give a default)`);
  }
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
