/**
 * When two server entries are the same server. Clients write one entry in
 * many spellings: `claude mcp add` adds `"env": {}`, others `"args": []`,
 * `"type": "stdio"` or `"disabled": false`, and `npx -y pkg` runs what
 * `npx pkg` runs. The key below is what an entry runs (command, args, env,
 * cwd) or reaches (transport, url, headers) with those spellings undone:
 * `metatools init` merges entries with equal keys, `metatools doctor` flags
 * configured backends with equal keys (each would add the same tools).
 */
import { canonicalJson } from "../util/canonical-json.js";
import { isPlainObject } from "../util/data.js";
import { isRemote, remoteKindOf } from "../model/transport-kinds.js";
import type { BackendSpec } from "./resolved.js";

/** The key of an entry as the config file (or a client's) writes it; equal keys mean the same server. */
export function serverKey(entry: Readonly<Record<string, unknown>>): string {
  // A disabled copy is kept apart: merging it into an enabled one (or the reverse) would change what runs.
  const disabled = entry.disabled === true ? { disabled: true } : {};
  if (typeof entry.command === "string") {
    const args = Array.isArray(entry.args) ? entry.args.map(String) : [];
    return canonicalJson({
      command: entry.command,
      args: isNpx(entry.command) ? withoutYes(args) : args,
      ...nonEmpty("env", entry.env),
      ...nonEmpty("cwd", entry.cwd),
      ...disabled,
    });
  }
  if (typeof entry.url === "string") {
    // Header names are case-insensitive in HTTP.
    const headers = isPlainObject(entry.headers) ? Object.fromEntries(Object.entries(entry.headers).map(([k, v]) => [k.toLowerCase(), String(v)])) : {};
    return canonicalJson({ transport: remoteKindOf(entry.type) ?? "http", url: normalUrl(entry.url), ...nonEmpty("headers", headers), ...disabled });
  }
  return canonicalJson({ tools: entry.tools, ...disabled });
}

/** The key of a configured backend (resolved, defaults applied), comparable with serverKey's. */
export function backendKey(spec: BackendSpec): string {
  if (isRemote(spec)) return serverKey({ type: spec.kind, url: spec.url, headers: spec.headers });
  if ("toolsFile" in spec) return serverKey({ tools: spec.toolsFile });
  return serverKey({ command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd });
}

/** The field, unless it is absent or empty (`{}`, `[]`, `""`): those mean the default. */
function nonEmpty(name: string, value: unknown): Record<string, unknown> {
  const empty =
    value === undefined ||
    value === null ||
    value === "" ||
    (Array.isArray(value) ? value.length === 0 : isPlainObject(value) && Object.keys(value).length === 0);
  return empty ? {} : { [name]: value };
}

function isNpx(command: string): boolean {
  return /(^|[/\\])npx(\.cmd|\.exe)?$/i.test(command);
}

/**
 * npx's args without `-y`/`--yes`: npx installs without asking when its
 * stdin is not a terminal, which it never is for an MCP server. Only npx's
 * own flags, before the package, are dropped; a `-y` after it is the
 * package's.
 */
function withoutYes(args: readonly string[]): string[] {
  const kept: string[] = [];
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-y" || arg === "--yes") continue;
    if (arg === "--" || !arg.startsWith("-")) break;
    kept.push(arg);
    // `-p PKG` names a package to install, not the command: it is npx's own too.
    if ((arg === "-p" || arg === "--package") && i + 1 < args.length) kept.push(args[++i]!);
  }
  return [...kept, ...args.slice(i)];
}

/** The URL as `new URL` spells it (scheme and host lower-case, default port dropped); as written when it does not parse. */
function normalUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
