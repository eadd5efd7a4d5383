/**
 * Puts the app behind MCP: one server per session, its instructions computed
 * when the session starts. Transports (stdio in src/stdio/, HTTP in src/http/)
 * only decide how sessions arrive.
 */
import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { Metatools } from "./app.js";
import { instructions, namespacesLine, NAMESPACES_TOPIC } from "./meta/instructions.js";
import { servedTools } from "./meta/index.js";
import { scopedFor } from "./meta/scoped.js";
import type { ServedTool } from "./server/definition.js";
import { createMcpServer } from "./server/mcp.js";
import type { Logger } from "./util/log.js";
import { LOCAL_PRINCIPAL } from "./security/principal.js";
import { packageVersion } from "./util/version.js";

/** Who a session serves and how: every field may be left out (one local user, every tool, a session that lasts). */
export interface SessionOptions {
  /** Where faults are logged. */
  logger?: Logger;
  /** The served tools; HTTP passes one set to all its sessions, so their validators compile once. */
  tools?: readonly ServedTool[];
  /** The caller (over HTTP, its bearer token's principal); unset: the local user. */
  principal?: string;
  /** The server answers one request (stateless HTTP): no session for later calls. */
  oneRequest?: boolean;
  /** The caller's profile (src/security/profiles.ts); unset: the default. */
  profile?: string;
  /** Settles when the backends have started or their grace is over: calls wait for it, the handshake does not (src/server/definition.ts). */
  ready?: Promise<unknown>;
  /** The namespaces the session's client was already told (its handshake was answered from the last launch's answer). */
  told?: string;
}

/** An MCP server for one session. */
export function createSessionServer(app: Metatools, options: SessionOptions = {}): Server {
  const { logger, tools = servedTools(app), principal, oneRequest = false, profile, ready, told } = options;
  // The backends' prompts and resources follow the profile as their tools do: a namespace it hides offers nothing.
  const scoped = scopedFor(app, profile);
  const sees = (namespace: string) => scoped.backends.state(namespace) !== undefined;
  return createMcpServer({
    listResources: (signal) => app.offerings.resources(sees, signal),
    complete: (params, signal) => app.offerings.complete(params, sees, signal),
    prompts: {
      list: (signal) => app.offerings.prompts(sees, signal),
      get: async (name, args, signal) => {
        const outcome = await app.offerings.prompt(name, args, sees, signal);
        if (outcome.kind === "ok") return outcome.result;
        throw new ProtocolError(outcome.kind === "failed" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams, outcome.message);
      },
    },
    questions: app.questions,
    tasks: app.tasks,
    oneRequest,
    name: "metatools",
    version: packageVersion(),
    // What the session is told is connected is what its profile shows; search tells it once more when that changed (a backend came up later).
    instructions: (session) => {
      const shown = scopedFor(app, profile);
      if (session) app.notices.changed(session, NAMESPACES_TOPIC, told ?? namespacesLine(shown));
      return instructions(shown);
    },
    ...(ready ? { ready } : {}),
    tools,
    // What a caller keeps (output handles, links, cached results) is kept per profile too: one token or the local user under two profiles is two callers.
    principal: profile === undefined ? principal : `${principal ?? LOCAL_PRINCIPAL}@${profile}`,
    // What a caller may hold at once, and what it teaches search, are counted by the caller alone: one token on /mcp and /mcp/p1 is one caller.
    caller: principal ?? LOCAL_PRINCIPAL,
    profile,
    onFault: (tool, error) => logger?.error(`${tool} fault: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    logging: (send) => app.clientLog.open(send),
    readResource: async (uri, { signal, principal: caller }) => {
      const outcome = await app.resources.read(uri, caller ?? LOCAL_PRINCIPAL, signal, sees);
      if (outcome.kind === "ok") return outcome.result;
      throw new ProtocolError(outcome.kind === "unknown" ? ProtocolErrorCode.ResourceNotFound : ProtocolErrorCode.InternalError, outcome.message);
    },
  });
}
