/**
 * Turns client server lists into metatools' `mcpServers`: the fields
 * metatools understands are kept, client-only ones are dropped and named,
 * names become valid namespaces, entries for the same server merge however
 * each client spelled them (config/same-server.ts), metatools itself is left
 * out, entries metatools would refuse are skipped with the reason, and every
 * literal secret is pointed out.
 */
import { existsSync, realpathSync } from "node:fs";
import { resolve } from "node:path";
import { REFERENCE } from "../../config/env.js";
import { RESERVED_NAMESPACES } from "../../config/load.js";
import { serverKey } from "../../config/same-server.js";
import { NAMESPACE_PATTERN, serverSchema } from "../../config/schema.js";
import { kindLabel, kindsWhere, remoteKindOf } from "../../model/transport-kinds.js";
import { isPlainObject } from "../../util/data.js";
import type { ClientSource } from "./clients.js";

export interface Converted {
  servers: Record<string, Record<string, unknown>>;
  /** What a person should know: renames, dropped fields, skipped entries. */
  notes: string[];
  /** Where literal credentials sit: `name.env.KEY`, `name.headers.KEY`, `name.args`, `name.url`. */
  literalSecrets: string[];
  /** The literal values themselves, to mask wherever the result is printed. */
  secretValues: string[];
  /** Environment variables the entries reference (`${VAR}`): they must be set where metatools runs. */
  variables: string[];
  /** Tool ids the clients ran without asking (`alwaysAllow`): the imported profile allows them, and asks before other destructive tools. */
  alwaysAllowed: string[];
}

export interface ConvertOptions {
  /** This CLI's entry point: an entry that runs it is metatools itself. */
  self: string;
  home: string;
  /** Stands for Cursor's `${workspaceFolder}`. */
  cwd: string;
}

const STDIO_KEYS = ["command", "args", "env", "cwd", "disabled"];
const REMOTE_KEYS = ["url", "headers", "disabled"];
const SECRET_NAME = /token|secret|password|passwd|api[-_]?key|_key$|^key$|_pat$|auth|credential|private/i;
const SECRET_ARG = /^--?[\w-]*(token|key|secret|password|passwd)[\w-]*=.+|:\/\/[^/\s:@]+:[^/\s@]+@/i;

export function convertServers(sources: readonly ClientSource[], options: ConvertOptions): Converted {
  const out: Converted = { servers: {}, notes: [], literalSecrets: [], secretValues: [], variables: [], alwaysAllowed: [] };
  // The namespace each server got, by what it runs or reaches: a second entry for it merges into the first.
  const seen = new Map<string, string>();
  for (const source of sources) {
    // Said only when there is more than one file to tell apart.
    const where = sources.length > 1 ? ` (${source.file}${source.scope ? ` ${source.scope}` : ""})` : "";
    for (const [name, entry] of Object.entries(source.servers)) {
      const notes: string[] = [];
      const converted = convertEntry(entry, options, notes);
      if (typeof converted === "string") {
        out.notes.push(`skipped ${name}${where}: ${converted}`);
        continue;
      }
      const key = serverKey(converted);
      const same = seen.get(key);
      const always =
        isPlainObject(entry) && Array.isArray(entry.alwaysAllow) ? entry.alwaysAllow.filter((t): t is string => typeof t === "string" && t.length > 0) : [];
      if (same !== undefined) {
        out.alwaysAllowed.push(...always.map((tool) => `${same}:${tool}`));
        // Said even when the entries are identical: the person counts fewer servers than entries.
        out.notes.push(`${name}${where} is the same server as "${same}": merged into it`);
        continue;
      }
      const namespace = uniqueName(out, name);
      seen.set(key, namespace);
      if (namespace !== name) out.notes.push(`${name}${where} is now "${namespace}": ${renameReason(name)}`);
      for (const note of notes) out.notes.push(`${namespace}${where}: ${note}`);
      if (
        typeof converted.url === "string" &&
        converted.oauth !== false &&
        !Object.keys((converted.headers as object | undefined) ?? {}).some((h) => h.toLowerCase() === "authorization")
      ) {
        out.notes.push(`${namespace}${where}: a remote server; if it asks for a sign-in (OAuth), sign in once with \`metatools auth login ${namespace}\``);
      }
      out.servers[namespace] = converted;
      out.alwaysAllowed.push(...always.map((tool) => `${namespace}:${tool}`));
      scanValues(out, namespace, converted);
    }
  }
  out.variables = [...new Set(out.variables)].sort();
  out.alwaysAllowed = [...new Set(out.alwaysAllowed)].sort();
  if (out.alwaysAllowed.length)
    out.notes.push(
      `alwaysAllow (${out.alwaysAllowed.length} tool${out.alwaysAllowed.length === 1 ? "" : "s"}) became profile "default": those run without asking, and every other tool that may change or delete data asks you first (MCP elicitation; a client that cannot ask is refused them). To never ask, set metatools.profiles.default.approvals.destructive to "allow"`,
    );
  return out;
}

/** The entry as metatools config, or why it is skipped; `notes` collects what was changed on the way. */
function convertEntry(entry: unknown, options: ConvertOptions, notes: string[]): Record<string, unknown> | string {
  if (!isPlainObject(entry)) return "not an object";
  const type = typeof entry.type === "string" ? entry.type.toLowerCase() : undefined;
  let converted: Record<string, unknown>;
  if (typeof entry.url === "string") {
    const remote = remoteKindOf(type === "streamablehttp" ? "streamable-http" : type);
    const spoken = kindsWhere((kind) => kind.configured && kind.connects).map(kindLabel);
    if (!remote) return `transport "${String(entry.type)}" is not one metatools speaks (${spoken.join(", ")})`;
    // http is the config's default type, left unwritten.
    converted = pick(entry, REMOTE_KEYS, remote === "http" ? {} : { type: remote }, options, notes);
    const oauth = clientOAuth(entry);
    if (oauth) converted.oauth = oauth;
  } else {
    if (typeof entry.command !== "string" || !entry.command) return 'no "command" or "url"';
    if (type !== undefined && type !== "stdio") return `transport "${String(entry.type)}" with a command`;
    converted = pick(entry, STDIO_KEYS, {}, options, notes);
    if (isMetatools(converted.command as string, (converted.args as string[] | undefined) ?? [], options.self)) return "that is metatools itself";
  }
  const dropped = Object.keys(entry).filter(
    (k) =>
      k !== "type" &&
      k !== "alwaysAllow" &&
      !(typeof entry.url === "string" ? [...REMOTE_KEYS, ...(converted.oauth ? ["oauth", "auth"] : [])] : STDIO_KEYS).includes(k),
  );
  if (dropped.length) notes.push(`left out ${dropped.map((k) => `"${k}"`).join(", ")}, client settings metatools does not use`);
  // Checked as metatools checks it, so one bad entry is skipped here rather than refusing the whole file at start.
  const checked = serverSchema.safeParse(converted);
  if (!checked.success) return `metatools would refuse it: ${checked.error.issues.map((i) => `${i.path.join(".") || "entry"}: ${i.message}`).join("; ")}`;
  return converted;
}

/**
 * A client's OAuth settings for a remote server, as metatools' `oauth`:
 * Claude Code's `oauth: {clientId, clientSecret, callbackPort, scopes}` or
 * Cursor's `auth: {CLIENT_ID, CLIENT_SECRET, scopes}`.
 */
function clientOAuth(entry: Record<string, unknown>): Record<string, unknown> | undefined {
  const given = isPlainObject(entry.oauth) ? entry.oauth : isPlainObject(entry.auth) ? entry.auth : undefined;
  if (!given) return undefined;
  const field = (...names: string[]) => names.map((n) => given[n]).find((v) => v !== undefined);
  const out: Record<string, unknown> = {};
  const clientId = field("clientId", "client_id", "CLIENT_ID");
  const clientSecret = field("clientSecret", "client_secret", "CLIENT_SECRET");
  const port = field("callbackPort", "callback_port");
  const scopes = field("scopes", "scope");
  if (typeof clientId === "string" && clientId) out.clientId = clientId;
  if (typeof clientSecret === "string" && clientSecret) out.clientSecret = clientSecret;
  if (typeof port === "number" && Number.isInteger(port)) out.callbackPort = port;
  if (Array.isArray(scopes) && scopes.every((x) => typeof x === "string")) out.scopes = scopes;
  else if (typeof scopes === "string" && scopes.trim()) out.scopes = scopes.trim().split(/[\s,]+/);
  return Object.keys(out).length ? out : undefined;
}

/** The fields metatools reads, each of the right type; anything else is named in a note. */
function pick(
  entry: Record<string, unknown>,
  keys: readonly string[],
  start: Record<string, unknown>,
  options: ConvertOptions,
  notes: string[],
): Record<string, unknown> {
  const out = { ...start };
  const text = (value: string) => clientVariables(value, options, notes);
  for (const key of keys) {
    const value = entry[key];
    if (value === undefined) continue;
    const wrong = () =>
      notes.push(
        `left out "${key}": expected ${key === "args" ? "a list of strings" : key === "disabled" ? "true or false" : key === "env" || key === "headers" ? "an object of strings" : "a string"}`,
      );
    if (key === "args") {
      if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) out.args = value.map((v) => text(String(v)));
      else wrong();
    } else if (key === "env" || key === "headers") {
      if (isPlainObject(value) && Object.values(value).every((v) => typeof v === "string" || typeof v === "number" || typeof v === "boolean"))
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, text(String(v))]));
      else wrong();
    } else if (key === "disabled") {
      if (typeof value === "boolean") out.disabled = value;
      else wrong();
    } else if (typeof value === "string") out[key] = text(value);
    else wrong();
  }
  return out;
}

/** Cursor writes `${env:NAME}`, `${userHome}` and `${workspaceFolder}`; metatools (like Claude Code) reads `${NAME}` and needs the others spelled out. */
function clientVariables(value: string, options: ConvertOptions, notes: string[]): string {
  return value
    .replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, "${$1}")
    .replace(/\$\{userHome\}/g, () => options.home)
    .replace(/\$\{workspaceFolder\}/g, () => {
      const note = `\${workspaceFolder} became ${options.cwd}, the folder init ran in`;
      if (!notes.includes(note)) notes.push(note);
      return options.cwd;
    });
}

function isMetatools(command: string, args: readonly string[], self: string): boolean {
  const words = [command, ...args];
  if (!words.includes("serve")) return false;
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  const selfPath = real(self);
  // By name (the bin, a package spec), this very file, or the command as built before it was bundled (dist/cli/main.js).
  return words.some(
    (w) => /(^|[/\\@])metatools(\.js|\.cmd)?$/i.test(w) || /(^|[/\\])dist[/\\]cli[/\\]main\.js$/.test(w) || (/\.m?js$/.test(w) && real(w) === selfPath),
  );
}

/** A namespace for `name`: kept when valid, else made valid; numbered when a different server has it (the same server never gets here). */
function uniqueName(out: Converted, name: string): string {
  let base = NAMESPACE_PATTERN.test(name)
    ? name
    : name
        .replace(/[^A-Za-z0-9_.-]+/g, "-")
        .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "")
        .slice(0, 60) || "server";
  if (RESERVED_NAMESPACES.includes(base)) base = `${base}-server`;
  for (let i = 1; ; i++) {
    const candidate = i === 1 ? base : `${base.slice(0, 60)}-${i}`;
    if (!Object.hasOwn(out.servers, candidate)) return candidate;
  }
}

function renameReason(name: string): string {
  if (RESERVED_NAMESPACES.includes(name)) return `metatools serves "${name}" itself`;
  if (NAMESPACE_PATTERN.test(name)) return "the name was taken by a different server";
  return "tool ids are namespace:tool, so names keep to letters, digits, _ . - (64 at most)";
}

function scanValues(out: Converted, namespace: string, entry: Record<string, unknown>): void {
  for (const match of JSON.stringify(entry).matchAll(REFERENCE)) out.variables.push(match[1]!);
  const literal = (value: string) => !/\$\{[^}]+\}/.test(value);
  const found = (where: string, value: string) => {
    out.literalSecrets.push(`${namespace}.${where}`);
    out.secretValues.push(value);
  };
  for (const field of ["env", "headers"] as const) {
    for (const [key, value] of Object.entries((entry[field] as Record<string, string> | undefined) ?? {})) {
      if (value && literal(value) && (SECRET_NAME.test(key) || /^(bearer|basic|token) /i.test(value))) found(`${field}.${key}`, value);
    }
  }
  for (const arg of (entry.args as string[] | undefined) ?? []) if (literal(arg) && SECRET_ARG.test(arg)) found("args", arg);
  const clientSecret = (entry.oauth as { clientSecret?: string } | undefined)?.clientSecret;
  if (clientSecret && literal(clientSecret)) found("oauth.clientSecret", clientSecret);
  const url = entry.url as string | undefined;
  if (url && literal(url) && /:\/\/[^/\s:@]+:[^/\s@]+@|[?&][\w-]*(key|token|secret)[\w-]*=/i.test(url)) found("url", url);
}

/** `text` with every literal secret replaced, for printing. */
export function maskSecrets(text: string, values: readonly string[]): string {
  // Raw, and as JSON writes it (quotes and backslashes escaped).
  const forms = values
    .filter((v) => v.length >= 4)
    .flatMap((v) => [v, JSON.stringify(v).slice(1, -1)].map((form) => [form, `<secret: ${v.length} characters>`] as const));
  return forms.reduce((t, [form, mask]) => t.split(form).join(mask), text);
}
