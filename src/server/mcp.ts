/**
 * MCP plumbing only: serves a fixed list of tools over any transport. It
 * knows nothing of backends, search or catalogs; the caller hands it tool
 * definitions whose handlers return ready content.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ReadResourceResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ClientPeer } from "../model/peer.js";
import { randomUUID } from "node:crypto";

export interface ServedTool {
  name: string;
  description: string;
  inputSchema: Tool["inputSchema"];
  annotations?: Tool["annotations"];
  /**
   * Handles one call. Expected failures are returned as content; a throw is
   * a fault and becomes `isError: true` with the message as text.
   */
  call(args: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult>;
}

export interface CallExtra {
  /** Aborted when the client cancels the request (or the session ends). */
  signal: AbortSignal;
  /** Present when the client asked for progress (`_meta.progressToken`): sends it a progress notification. */
  onProgress?: (update: { progress: number; total?: number; message?: string }) => void;
  /** Who the call is made for, as the server was told (`ServerDefinition.principal`). */
  principal?: string;
  /** The client of this session: what it declared, and how to ask it (elicitation, sampling) during this call. */
  peer?: ClientPeer;
  /** This session's id, made by the server: calls of one session share it. */
  session?: string;
  /** The profile the caller was given (src/security/profiles.ts): which tools it sees, which calls need an approval. Unset: the default profile. */
  profile?: string;
  /** A person typed this call (`metatools run` at a terminal): that is its approval. Never set by a server. */
  typed?: boolean;
}

export interface ServerDefinition {
  name: string;
  version: string;
  /** Computed when a session starts, so it can describe what is connected then. */
  instructions: () => string;
  tools: readonly ServedTool[];
  /**
   * Who every call on this server is made for: an opaque id the transport
   * established (over HTTP, the bearer token's), handed to each call as
   * `extra.principal`. A server serves one session, and a session one caller.
   */
  principal?: string;
  /** The profile every call on this server gets (src/security/profiles.ts), handed to each as `extra.profile`. */
  profile?: string;
  /** The server answers a single request (stateless HTTP): its calls carry no session id. */
  oneRequest?: boolean;
  /** Where faults are reported (stderr); never stdout. */
  onFault?: (tool: string, error: unknown) => void;
  /**
   * Reads a resource by a link a tool's result handed out (`resources/read`).
   * No resource is listed: the links come with results. Rejects with an
   * McpError when the link is unknown or the read fails.
   */
  readResource?(uri: string, extra: { signal: AbortSignal; principal?: string }): Promise<ReadResourceResult>;
  /**
   * Log messages for this session's client (MCP logging): called once with
   * the function that sends one; returns how the client's chosen level is
   * set, and the close that stops the messages when the server closes.
   */
  logging?(send: (message: { level: LoggingLevel; logger: string; data: unknown }) => void): { setLevel(level: LoggingLevel): void; close(): void };
}

/** How long a person or a model may take to answer a backend's question (the call's own timeout still applies). */
const INTERACTION_TIMEOUT_MS = 10 * 60_000;

/** A fresh MCP server for one session (stdio has one; HTTP has one per session). */
export function createMcpServer(definition: ServerDefinition): Server {
  // A server made for one request (stateless HTTP) has no session for later calls to share.
  const session = definition.oneRequest ? undefined : randomUUID();
  const server = new Server(
    { name: definition.name, version: definition.version },
    {
      capabilities: { tools: { listChanged: false }, ...(definition.readResource ? { resources: {} } : {}), ...(definition.logging ? { logging: {} } : {}) },
      instructions: definition.instructions(),
    },
  );
  if (definition.logging) {
    const log = definition.logging((message) => void server.sendLoggingMessage(message).catch(() => {}));
    // The level is this session's (the SDK keys levels by transport session id, which a one-session server does not need).
    server.setRequestHandler(SetLevelRequestSchema, async (request) => {
      log.setLevel(request.params.level);
      return {};
    });
    const close = server.close.bind(server);
    server.close = async () => {
      log.close();
      await close();
    };
    // A session the client ends (DELETE, or its transport closing) never goes through server.close: its
    // log subscription, and with it the whole session's server, would be held for the process's life.
    const closed = server.onclose;
    server.onclose = () => {
      log.close();
      closed?.();
    };
  }
  const readResource = definition.readResource;
  if (readResource) {
    // Nothing is listed: a resource is reached through a link a result gave (the three tools stay the whole surface).
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      readResource(request.params.uri, { signal: extra.signal, principal: definition.principal }),
    );
  }
  const byName = new Map(definition.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: definition.tools.map(({ name, description, inputSchema, annotations }) => ({ name, description, inputSchema, annotations })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool "${request.params.name}"; this server has ${[...byName.keys()].join(", ")}`);
    }
    try {
      const token = request.params._meta?.progressToken;
      const sent: Promise<void>[] = [];
      const onProgress =
        token === undefined
          ? undefined
          : (update: { progress: number; total?: number; message?: string }) =>
              void sent.push(extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, ...update } }).catch(() => {}));
      const declared = server.getClientCapabilities() ?? {};
      // Requests go out tied to this call (over HTTP, on its own response stream), and end with it.
      const peer: ClientPeer = {
        id: server,
        elicitation: declared.elicitation !== undefined,
        sampling: declared.sampling !== undefined,
        elicit: (params, signal) =>
          extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, { signal, timeout: INTERACTION_TIMEOUT_MS }),
        createMessage: (params, signal) =>
          extra.sendRequest({ method: "sampling/createMessage", params }, CreateMessageResultSchema, { signal, timeout: INTERACTION_TIMEOUT_MS }),
      };
      const result = await tool.call(request.params.arguments ?? {}, {
        signal: extra.signal,
        onProgress,
        principal: definition.principal,
        profile: definition.profile,
        peer,
        session,
      });
      // Progress must reach the client before the result: it stops listening once the result arrives.
      await Promise.all(sent);
      return result;
    } catch (error) {
      definition.onFault?.(tool.name, error);
      const message = error instanceof Error ? error.message : String(error);
      return { isError: true, content: [{ type: "text", text: `internal error in ${tool.name}: ${message}` }] };
    }
  });
  return server;
}
