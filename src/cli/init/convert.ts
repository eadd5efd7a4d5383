/**
 * Turns client server lists into metatools' `mcpServers`: the fields
 * metatools understands are kept, client-only ones are dropped and named,
 * names become valid namespaces, duplicates merge, metatools itself is left
 * out, and every literal secret is pointed out.
 */
import { RESERVED_NAMESPACES } from "../../config/load.js";
import { isObject, type ClientSource } from "./clients.js";

export interface Converted {
  servers: Record<string, Record<string, unknown>>;
  /** What a person should know: renames, dropped fields, skipped entries. */
  notes: string[];
  /** `name.env.KEY` / `name.headers.KEY` holding a literal credential. */
  literalSecrets: string[];
  /** Environment variables the entries reference (`${VAR}`): they must be set where metatools runs. */
  variables: string[];
}

const STDIO_KEYS = ["command", "args", "env", "cwd", "disabled"];
const REMOTE_KEYS = ["url", "headers", "disabled"];
const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|auth|credential|private/i;

export function convertServers(sources: readonly ClientSource[]): Converted {
  const out: Converted = { servers: {}, notes: [], literalSecrets: [], variables: [] };
  for (const source of sources) {
    // Said only when there is more than one file to tell apart.
    const where = sources.length > 1 ? ` (${source.file}${source.scope ? ` ${source.scope}` : ""})` : "";
    for (const [name, entry] of Object.entries(source.servers)) {
      const converted = convertEntry(entry);
      if (typeof converted === "string") {
        out.notes.push(`skipped ${name}${where}: ${converted}`);
        continue;
      }
      const namespace = uniqueName(out, name, converted);
      if (namespace === undefined) continue;
      if (namespace !== name) out.notes.push(`${name}${where} is now "${namespace}": ${renameReason(name)}`);
      const dropped = Object.keys(entry as object).filter((k) => k !== "type" && !(converted.url ? REMOTE_KEYS : STDIO_KEYS).includes(k));
      if (dropped.length) out.notes.push(`${namespace}${where}: left out ${dropped.map((k) => `"${k}"`).join(", ")}, client settings metatools does not use`);
      out.servers[namespace] = converted;
      scanValues(out, namespace, converted);
    }
  }
  out.variables = [...new Set(out.variables)].sort();
  return out;
}

/** The entry as metatools config, or why it is skipped. */
function convertEntry(entry: unknown): Record<string, unknown> | string {
  if (!isObject(entry)) return "not an object";
  const type = typeof entry.type === "string" ? entry.type.toLowerCase() : undefined;
  if (typeof entry.url === "string") {
    const remote = type === "sse" ? "sse" : type === undefined || ["http", "streamable-http", "streamablehttp"].includes(type) ? "http" : undefined;
    if (!remote) return `transport "${entry.type as string}" is not one metatools speaks (stdio, http, sse)`;
    return pick(entry, REMOTE_KEYS, remote === "sse" ? { type: "sse", url: entry.url } : { url: entry.url });
  }
  if (typeof entry.command !== "string" || !entry.command) return 'no "command" or "url"';
  if (type !== undefined && type !== "stdio") return `transport "${entry.type as string}" with a command`;
  const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
  if (isMetatools(entry.command, args)) return "that is metatools itself";
  return pick(entry, STDIO_KEYS, { command: entry.command });
}

function pick(entry: Record<string, unknown>, keys: readonly string[], start: Record<string, unknown>): Record<string, unknown> {
  const out = { ...start };
  for (const key of keys) {
    const value = entry[key];
    if (value === undefined || key in out) continue;
    if (key === "args" && Array.isArray(value)) out.args = value.map((v) => envSyntax(String(v)));
    else if ((key === "env" || key === "headers") && isObject(value)) out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, envSyntax(String(v))]));
    else if (key === "disabled" && typeof value === "boolean") out.disabled = value;
    else if (key === "cwd" && typeof value === "string") out.cwd = value;
  }
  return out;
}

/** Cursor writes `${env:NAME}`; metatools (like Claude Code) reads `${NAME}`. */
function envSyntax(value: string): string {
  return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "${$1}");
}

function isMetatools(command: string, args: readonly string[]): boolean {
  const words = [command, ...args].map((w) => w.toLowerCase());
  return words.some((w) => /(^|[/\\@])metatools(\.js|\.cmd)?$|metatools[/\\]dist[/\\]cli[/\\]main\.js$/.test(w)) && words.includes("serve");
}

/** A namespace for `name`: valid, and not taken by a different server (the same server from two files is kept once). */
function uniqueName(out: Converted, name: string, entry: Record<string, unknown>): string | undefined {
  let base = name.replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "").slice(0, 60) || "server";
  if (RESERVED_NAMESPACES.includes(base)) base = `${base}-server`;
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? base : `${base}-${i}`;
    const taken = out.servers[candidate];
    if (!taken) return candidate;
    if (JSON.stringify(taken) === JSON.stringify(entry)) return undefined;
  }
}

function renameReason(name: string): string {
  if (RESERVED_NAMESPACES.includes(name)) return `metatools serves "${name}" itself`;
  if (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,59}$/.test(name)) return "the name was taken by a different server";
  return "tool ids are namespace:tool, so names keep to letters, digits, _ . - (64 at most)";
}

function scanValues(out: Converted, namespace: string, entry: Record<string, unknown>): void {
  const text = JSON.stringify(entry);
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) out.variables.push(match[1]!);
  for (const field of ["env", "headers"] as const) {
    const map = entry[field] as Record<string, string> | undefined;
    for (const [key, value] of Object.entries(map ?? {})) {
      if (value && !/\$\{[^}]+\}/.test(value) && (SECRET_NAME.test(key) || /^(bearer|basic|token) /i.test(value))) out.literalSecrets.push(`${namespace}.${field}.${key}`);
    }
  }
}
