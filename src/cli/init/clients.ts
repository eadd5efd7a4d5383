/**
 * Where MCP clients keep their server lists, and how to read them. All three
 * use the same `mcpServers` map; Claude Code has it at the top of
 * `~/.claude.json` (user scope), under `projects[<dir>]` (local scope) and in
 * a project's `.mcp.json` (project scope); Cursor in `~/.cursor/mcp.json` and
 * a project's `.cursor/mcp.json`.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isPlainObject } from "../../util/data.js";
import { errorMessage } from "../../util/errors.js";

export const CLIENTS = ["claude-desktop", "claude-code", "cursor"] as const;
export type ClientId = (typeof CLIENTS)[number];

export const CLIENT_NAMES: Record<ClientId, string> = { "claude-desktop": "Claude Desktop", "claude-code": "Claude Code", cursor: "Cursor" };

/** One client config file that exists, with the servers it lists. */
export interface ClientSource {
  client: ClientId | "file";
  file: string;
  /** Which part of the file, when not the top-level map (Claude Code's per-project entries). */
  scope?: string;
  servers: Record<string, unknown>;
}

export interface Places {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
}

export function defaultPlaces(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): Places {
  return { home: env.HOME || env.USERPROFILE || homedir(), cwd, platform: process.platform, env };
}

/** The files each client reads, most general first. */
export function clientFiles(client: ClientId, places: Places): string[] {
  const { home, cwd, platform, env } = places;
  switch (client) {
    case "claude-desktop":
      if (platform === "darwin") return [join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json")];
      if (platform === "win32") return [join(env.APPDATA ?? join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json")];
      return [join(env.XDG_CONFIG_HOME || join(home, ".config"), "Claude", "claude_desktop_config.json")];
    case "claude-code":
      return [join(home, ".claude.json"), join(cwd, ".mcp.json")];
    case "cursor":
      return [join(home, ".cursor", "mcp.json"), join(cwd, ".cursor", "mcp.json")];
  }
}

/** Every server list a client has on this machine; unreadable files are errors naming the file. */
export function readClient(client: ClientId, places: Places): ClientSource[] {
  const sources: ClientSource[] = [];
  for (const file of clientFiles(client, places)) {
    if (!existsSync(file)) continue;
    const json = readJson(file);
    sources.push({ client, file, servers: serverMap(json.mcpServers, file, "mcpServers") });
    // Claude Code's local scope: servers added in this project, kept in the user's file.
    const projects = json.projects;
    if (client === "claude-code" && isPlainObject(projects) && isPlainObject(projects[places.cwd])) {
      const mine = (projects[places.cwd] as Record<string, unknown>).mcpServers;
      if (mine !== undefined)
        sources.push({ client, file, scope: `projects["${places.cwd}"]`, servers: serverMap(mine, file, `projects["${places.cwd}"].mcpServers`) });
    }
  }
  return sources;
}

/** Any file holding an `mcpServers` map (a client config copied elsewhere, or metatools' own). */
export function readFile(file: string): ClientSource {
  const json = readJson(file);
  if (json.mcpServers === undefined) throw new InitError(`${file} has no "mcpServers" map: is it an MCP client config (Claude Desktop, Claude Code, Cursor)?`);
  return { client: "file", file, servers: serverMap(json.mcpServers, file, "mcpServers") };
}

export class InitError extends Error {}

function readJson(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new InitError(`cannot read ${file}: ${errorMessage(error)}`);
  }
  if (!isPlainObject(parsed)) throw new InitError(`${file}: expected a JSON object`);
  return parsed;
}

function serverMap(value: unknown, file: string, where: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isPlainObject(value)) throw new InitError(`${file}: ${where} should be an object of servers`);
  return value;
}
