/**
 * `metatools init`: imports the MCP servers an existing client already runs
 * (Claude Desktop, Claude Code, Cursor, or any file with `mcpServers`) into a
 * metatools config, then prints how to register metatools in that client in
 * their place. Nothing but the new config is written.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { CLI_ENTRY, PACKAGE_ROOT } from "../../util/package-root.js";
import { REFERENCE } from "../../config/env.js";
import { parseConfig } from "../../config/load.js";
import type { UnresolvedServer } from "../../config/resolved.js";
import { CLIENT_NAMES, CLIENTS, clientFiles, defaultPlaces, InitError, readClient, readFile, type ClientId, type ClientSource } from "../init/clients.js";
import { convertServers, maskSecrets, type Converted } from "../init/convert.js";
import { flag, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { styleFor, type Style } from "../style.js";
import { writeFileAtomic } from "../../util/files.js";
import { stderr, stdout } from "../output.js";
import { selfCommand } from "../command-line.js";

export const command = defineCommand({
  name: "init",
  group: "start",
  summary: "import the MCP servers your client runs into metatools.json, and print how to register metatools there",
  flags: {
    from: flag.repeatable("FILE", "where to import from: a client's config, or any file with mcpServers (default: every client's found)", CLIENTS),
    out: flag.string("FILE", "the file to write (default --config, else ./metatools.json)"),
    force: flag.boolean("replace the file if it exists"),
    "dry-run": flag.boolean("print the file instead of writing it (literal secrets masked)"),
    client: flag.oneOf(CLIENTS, "say how to register metatools in this client (default: those imported from)"),
    json: SHARED.json,
  },
  run: init,
});

export async function init(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals.length) throw new UsageError(`unexpected "${positionals[0]}": name sources with --from (${CLIENTS.join(", ")} or a file)`);
  if (values.client !== undefined && !CLIENTS.includes(values.client as ClientId))
    throw new UsageError(`--client takes ${CLIENTS.join(", ")}, got "${values.client}"`);
  const out = resolve(values.out ?? values.config ?? "metatools.json");
  const places = defaultPlaces();
  let sources: ClientSource[];
  const unreadable: string[] = [];
  try {
    // Named sources must all be read; found ones are taken when they can be (a client may be writing its file right now).
    sources = values.from?.length ? values.from.flatMap((from) => fromOne(from, places)) : CLIENTS.flatMap((c) => readSkipping(c, places, unreadable));
  } catch (error) {
    if (error instanceof InitError) throw new UsageError(error.message);
    throw error;
  }
  if (!values["dry-run"] && existsSync(out) && !values.force) {
    stderr().write(`metatools init: ${out} exists; pass --force to replace it, --out FILE to write elsewhere, or --dry-run to see the result\n`);
    return 1;
  }
  const cli = CLI_ENTRY;
  const converted = convertServers(sources, { self: cli, home: places.home, cwd: places.cwd });
  converted.notes.unshift(...unreadable.map((why) => `skipped ${why}`));
  // What the clients ran without asking stays so: the imported profile allows those and asks before other destructive tools.
  const approvals = { destructive: "ask", tools: Object.fromEntries(converted.alwaysAllowed.map((id) => [id, "allow"])) };
  const config = { mcpServers: converted.servers, ...(converted.alwaysAllowed.length ? { metatools: { profiles: { default: { approvals } } } } : {}) };
  // Read as metatools will read it here: an entry whose variables are not set waits for them (needs_config), the others start.
  const waiting = parseConfig(config, { file: out, env: process.env }).unresolved.map((u) => ({ ...u, unset: unsetIn(converted.servers[u.namespace]) }));
  const text = `${JSON.stringify(config, null, 2)}\n`;
  const mask = (printed: string) => maskSecrets(printed, converted.secretValues);
  const dryRun = values["dry-run"] === true;
  // Secrets go in a file only its owner reads.
  if (!dryRun) writeFileAtomic(out, text, converted.literalSecrets.length ? 0o600 : 0o644);

  const clients = values.client ? [values.client as ClientId] : [...new Set(sources.map((s) => s.client).filter((c): c is ClientId => c !== "file"))];
  const register = Object.fromEntries((clients.length ? clients : CLIENTS).map((c) => [c, registration(c, cli, out, places)]));
  if (values.json) {
    // A dry run answers as the real run would, saying that nothing was written.
    stdout().write(
      mask(
        `${JSON.stringify({ ...(dryRun ? { dryRun: true } : {}), file: out, servers: converted.servers, sources: sources.map(({ client, file, scope, servers }) => ({ client, file, scope, count: Object.keys(servers).length })), notes: converted.notes, literalSecrets: converted.literalSecrets, variables: converted.variables, needsConfig: waiting.map(({ namespace, problem, fix }) => ({ namespace, problem, fix })), register }, null, 2)}\n`,
      ),
    );
    return 0;
  }
  if (dryRun) {
    // stdout is the file as it would be written (so it can be redirected); what a person should know about it goes to stderr.
    stdout().write(mask(text));
    const notes = findings(converted, waiting, styleFor(process.stderr));
    if (notes.length) stderr().write(mask(`${notes.join("\n")}\n`));
    if (converted.secretValues.length) stderr().write("metatools init: literal secrets are masked in this preview; the file gets them as they are\n");
    return 0;
  }
  const style = styleFor(process.stdout);
  const names = Object.keys(converted.servers);
  const lines: string[] = [];
  if (!sources.length) {
    lines.push(
      `No MCP client config found (looked for ${CLIENTS.flatMap((c) => clientFiles(c, places)).join(", ")}).`,
      `Wrote ${out} with no servers: metatools serves its built-in code tools; add servers under "mcpServers".`,
    );
  } else {
    lines.push(style.bold(`Wrote ${out} with ${names.length} server${names.length === 1 ? "" : "s"}:`));
    for (const s of sources)
      lines.push(
        `  from ${s.client === "file" ? "" : `${CLIENT_NAMES[s.client]}: `}${s.file}${s.scope ? ` ${s.scope}` : ""} (${Object.keys(s.servers).length})`,
      );
    lines.push(`  ${names.join(", ") || "(none)"}`);
  }
  lines.push(...findings(converted, waiting, style));
  for (const [client, how] of Object.entries(register)) lines.push("", style.bold(`Register metatools in ${CLIENT_NAMES[client as ClientId]}`), how);
  const self = selfCommand();
  const configFlag = out === resolve("metatools.json") ? "" : ` --config ${out}`;
  lines.push("", `Check it:  ${self} doctor${configFlag}`, `Try it:    ${self} search "read a file"${configFlag}`);
  stdout().write(mask(`${lines.join("\n")}\n`));
  return 0;
}

/** The notes, literal secrets, servers that will not start and variables to set: what both the run and the dry run tell a person. */
function findings(converted: Converted, waiting: readonly Waiting[], style: Style): string[] {
  const lines = converted.notes.map((note) => style.dim(`  note: ${note}`));
  if (converted.literalSecrets.length) {
    const many = converted.literalSecrets.length > 1;
    lines.push(
      style.warn(
        `  secrets: ${converted.literalSecrets.join(", ")} ${many ? "hold literal values" : "holds a literal value"}; the file is readable only by you${process.platform === "win32" ? " (on POSIX systems)" : ""}. Better: write "\${NAME}" there and set NAME in the environment metatools runs in.`,
      ),
    );
  }
  const others = Object.keys(converted.servers).length - waiting.length;
  const rest = others ? `the other ${others === 1 ? "server starts" : `${others} servers start`} without ${waiting.length === 1 ? "it" : "them"}` : "";
  for (const w of waiting) {
    const until = w.unset.length
      ? `${w.unset.join(" and ")} ${w.unset.length === 1 ? "is" : "are"} set in the environment metatools runs in (not set here)`
      : `a person does this: ${w.fix}`;
    lines.push(style.warn(`  ${w.namespace} will not start until ${until}${rest && waiting.length === 1 ? `; ${rest}` : ""}`));
  }
  if (rest && waiting.length > 1) lines.push(style.warn(`  ${rest}`));
  // Set here, but a client started from the desktop does not get this shell's environment.
  const set = converted.variables.filter((name) => process.env[name]);
  if (set.length)
    lines.push(`  set here, and needed where metatools runs too (an app started from the desktop does not get your shell's variables): ${set.join(", ")}`);
  if (converted.variables.length) {
    const name = converted.variables[0]!;
    lines.push(
      `  to give metatools ${converted.variables.length === 1 ? "it" : "them"} when a client launches it: add "env": { "${name}": "…" } to the metatools entry in the client's config (Claude Code: claude mcp add … -e ${name}=…); each server then gets only the variables its own entry names`,
    );
  }
  return lines;
}

/** A server that will not start as imported, and the variables it names that are not set here. */
type Waiting = UnresolvedServer & { unset: string[] };

/** The `${NAME}`s of an entry, without a default, that are not set in this environment. */
function unsetIn(entry: unknown): string[] {
  const names = [...JSON.stringify(entry ?? {}).matchAll(REFERENCE)].filter((m) => m[2] === undefined && !process.env[m[1]!]).map((m) => m[1]!);
  return [...new Set(names)];
}

function readSkipping(client: ClientId, places: ReturnType<typeof defaultPlaces>, unreadable: string[]): ClientSource[] {
  try {
    return readClient(client, places);
  } catch (error) {
    if (!(error instanceof InitError)) throw error;
    unreadable.push(`${CLIENT_NAMES[client]}: ${error.message}`);
    return [];
  }
}

function fromOne(from: string, places: ReturnType<typeof defaultPlaces>): ClientSource[] {
  if (!CLIENTS.includes(from as ClientId)) return [readFile(resolve(from))];
  const found = readClient(from as ClientId, places);
  if (!found.length)
    throw new InitError(
      `no ${CLIENT_NAMES[from as ClientId]} config found (looked for ${clientFiles(from as ClientId, places).join(", ")}); pass its file with --from FILE`,
    );
  return found;
}

/** How to put metatools in a client's config, launching this very installation (absolute paths: GUI apps do not share the shell's PATH). */
function registration(client: ClientId, cli: string, configFile: string, places: ReturnType<typeof defaultPlaces>): string {
  // Claude Code starts servers in the project, the right root for the code tools; a desktop app's working folder can be anything, so name one.
  // Not metatools' own folder (init run in a clone): the code tools would serve metatools' source, and "read a file" would find them first.
  const own = isWithin(places.cwd, PACKAGE_ROOT);
  const root = client === "claude-code" || own ? [] : ["--root", places.cwd];
  const args = [cli, "serve", "--config", configFile, ...root];
  if (client === "claude-code") {
    const quote = (s: string) => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
    return `  claude mcp add --scope user metatools -- ${[process.execPath, ...args].map(quote).join(" ")}${cloneNote()}\n  then remove the imported servers: claude mcp remove NAME (for each), so the agent sees only metatools`;
  }
  const file = clientFiles(client, places)[0]!;
  const snippet = [
    `  {`,
    `    "mcpServers": {`,
    `      "metatools": { "command": ${JSON.stringify(process.execPath)}, "args": ${JSON.stringify(args).replace(/","/g, '", "')} }`,
    `    }`,
    `  }`,
  ].join("\n");
  const rootNote = own
    ? `\n  no --root is written: this is metatools' own folder, and the code tools would serve its source. Add "--root", "/path/to/your/project" to args (or run init from your project).`
    : "";
  return `  in ${file}, replace the servers under "mcpServers" with:\n${snippet}${rootNote}${cloneNote()}\n  then restart ${CLIENT_NAMES[client]}.`;
}

/**
 * A launch line into a git clone breaks when the clone moves; an installed
 * copy (`npm run install-global`, which has no .git) does not.
 */
function cloneNote(): string {
  if (!existsSync(join(PACKAGE_ROOT, ".git"))) return "";
  return `\n  this runs metatools from its clone: if the clone moves, run init again, or install a copy that stays put (npm run install-global in the clone) and run metatools init with it.`;
}

/** Whether `path` is `folder` or inside it. */
function isWithin(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
