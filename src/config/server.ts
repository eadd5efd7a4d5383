/**
 * One `mcpServers` entry: which of the three kinds it is (for errors that
 * speak of that kind, not of a union), and what it resolves to.
 */
import { isAbsolute, resolve } from "node:path";
import type * as z from "zod";
import { remoteKindOf } from "../model/transport-kinds.js";
import { isPlainObject } from "../util/data.js";
import type { BackendSpec } from "./resolved.js";
import { serverSchema, type ServerConfig } from "./schema.js";

export function resolveBackend(namespace: string, server: ServerConfig, baseDir: string, connectMs: number, callMs: number): BackendSpec {
  const common = {
    namespace,
    connectTimeoutMs: server.connectTimeoutMs ?? connectMs,
    callTimeoutMs: server.callTimeoutMs ?? callMs,
    ...("tools" in server && server.tools && typeof server.tools === "object"
      ? { tools: { allow: server.tools.allow ?? [], deny: server.tools.deny ?? [] } }
      : {}),
    ...("serverName" in server && server.serverName !== undefined ? { serverName: server.serverName } : {}),
  };
  if ("command" in server) {
    return {
      ...common,
      kind: "stdio",
      command: server.command,
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: server.cwd === undefined ? undefined : resolve(baseDir, server.cwd),
    };
  }
  if ("url" in server) {
    const headers = server.headers ?? {};
    // A configured Authorization header is the server's credential: no sign-in is attempted over it.
    const signsIn = server.oauth !== false && !Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
    return { ...common, kind: remoteKindOf(server.type) ?? "http", url: server.url, headers, ...(signsIn ? { oauth: server.oauth || {} } : {}) };
  }
  return { ...common, kind: "catalog", toolsFile: isAbsolute(server.tools) ? server.tools : resolve(baseDir, server.tools) };
}

/** Picks the variant by its telltale field, so errors speak of that variant and not of a union. */
export function pickServerSchema(server: unknown): z.ZodType | undefined {
  const [stdio, remote, catalog] = serverSchema.options;
  if (!isPlainObject(server)) return undefined;
  if (server.type === "catalog") return catalog;
  if ("url" in server || (server.type !== undefined && remoteKindOf(server.type))) return remote;
  if ("command" in server || server.type === "stdio") return stdio;
  return undefined;
}
