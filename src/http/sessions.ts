/**
 * The open MCP sessions of a session-ful HTTP server: one SDK server and
 * transport each, found by the `mcp-session-id` header, closed when the
 * client ends them (DELETE), when idle too long, or at shutdown.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "../util/log.js";

interface Session {
  /** Who opened it (a token's key): nobody else may use it. */
  owner: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();

  constructor(private readonly options: { idleMs: number; max: number; logger: Logger }) {}

  get size(): number {
    return this.byId.size;
  }

  get full(): boolean {
    return this.byId.size >= this.options.max;
  }

  get(id: string, owner: string): Session | undefined {
    const session = this.byId.get(id);
    if (session?.owner !== owner) return undefined;
    session.lastSeen = Date.now();
    return session;
  }

  /**
   * Starts a session for a request without an id. The transport keeps it
   * only if the request was an initialize; otherwise it has answered with an
   * error, and the pair is dropped.
   */
  async open(server: Server, owner: string, options: { maxRequestBodySize: number }, handle: (transport: StreamableHTTPServerTransport) => Promise<void>): Promise<void> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      ...options,
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.byId.set(id, { owner, server, transport, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.byId.delete(transport.sessionId);
    };
    await server.connect(transport);
    await handle(transport);
    if (!transport.sessionId) await close(server, transport);
  }

  /** Closes sessions idle longer than the limit. */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.byId) {
      if (now - session.lastSeen < this.options.idleMs) continue;
      this.options.logger.info(`closing session ${id}: idle for ${Math.round((now - session.lastSeen) / 1000)} s`);
      this.byId.delete(id);
      void close(session.server, session.transport);
    }
  }

  async closeAll(): Promise<void> {
    const all = [...this.byId.values()];
    this.byId.clear();
    await Promise.all(all.map((s) => close(s.server, s.transport)));
  }
}

async function close(server: Server, transport: StreamableHTTPServerTransport): Promise<void> {
  await transport.close().catch(() => {});
  await server.close().catch(() => {});
}
