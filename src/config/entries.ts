/**
 * The `mcpServers` entries, each read on its own: one that cannot be used
 * as written (a `${VAR}` that is not set, a field of the wrong kind) is set
 * aside with the fix a person must make, and every other server serves. A
 * disabled entry is never read: its variables are not substituted, its
 * fields not checked. Only problems of the file itself (not JSON, a bad
 * `metatools` section, a name that cannot be a namespace) refuse the config.
 */
import { remoteKindOf } from "../model/transport-kinds.js";
import { isPlainObject } from "../util/data.js";
import { ConfigError } from "../util/errors.js";
import { check } from "./check.js";
import { formatPath, substituteEnv, UnsetVariableError, type Secret } from "./env.js";
import type { DisabledServer, UnresolvedServer } from "./resolved.js";
import { didYouMean, fieldsAt } from "./did-you-mean.js";
import { NAMESPACE_PATTERN, serverSchema } from "./schema.js";
import { pickServerSchema } from "./server.js";

export interface ServerEntries {
  /** The entries that can be used, substituted and checked against their kind's schema. */
  servers: Record<string, unknown>;
  /** The entries that cannot, in file order, each with its fix. */
  unresolved: UnresolvedServer[];
  /** The entries turned off with `"disabled": true`, never read further: doctor lists them. */
  disabled: DisabledServer[];
}

/** `secrets` collects the values substituted that are secrets (config/secrets.ts). */
export function readServerEntries(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, file: string, secrets: Secret[]): ServerEntries {
  const servers: Record<string, unknown> = {};
  const unresolved: UnresolvedServer[] = [];
  const disabled: DisabledServer[] = [];
  for (const [name, entry] of Object.entries(raw)) {
    const at = ["mcpServers", name];
    // The name is the namespace of every tool id: not a field a server can do without.
    if (!NAMESPACE_PATTERN.test(name)) {
      throw new ConfigError(file, formatPath(at), "server names become tool-id namespaces: use letters, digits, '_', '.', '-' (no ':'), at most 64 characters");
    }
    if (isPlainObject(entry) && entry.disabled === true) {
      disabled.push({ namespace: name, kind: kindOf(entry) });
      continue;
    }
    try {
      const substituted = substituteEnv(entry, env, file, at, secrets);
      // Picked by its telltale field, so the error speaks of that kind and not of a union.
      const schema = pickServerSchema(substituted);
      if (!schema) {
        const known = new Set(fieldsAt(serverSchema, []));
        const strangers = isPlainObject(substituted) ? Object.keys(substituted).filter((key) => !known.has(key)) : [];
        const guess = didYouMean(serverSchema, [], strangers);
        throw new ConfigError(file, formatPath(at), `a server needs \`command\` (stdio), \`url\` (http or sse), or \`type: "catalog"\` with \`tools\`${guess}`);
      }
      check(schema, substituted, file, at);
      servers[name] = substituted;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      unresolved.push(unresolvedOf(name, entry, error));
    }
  }
  return { servers, unresolved, disabled };
}

function unresolvedOf(namespace: string, entry: unknown, error: ConfigError): UnresolvedServer {
  const field = error.field || formatPath(["mcpServers", namespace]);
  if (error instanceof UnsetVariableError) {
    return {
      namespace,
      kind: kindOf(entry),
      field,
      problem: `environment variable ${error.variable} is not set (${field} uses it)`,
      fix: `set ${error.variable} in the environment metatools runs in (a running server sees it after a restart)`,
    };
  }
  return { namespace, kind: kindOf(entry), field, problem: `${field}: ${error.detail}`, fix: `correct ${field} in ${error.file}, then restart metatools` };
}

/** What the entry was meant to be, as far as it says: for the kind column of doctor. */
function kindOf(entry: unknown): UnresolvedServer["kind"] {
  if (!isPlainObject(entry)) return "stdio";
  if (entry.type === "catalog") return "catalog";
  const remote = entry.type === undefined ? undefined : remoteKindOf(entry.type);
  return remote ?? ("url" in entry ? "http" : "stdio");
}
