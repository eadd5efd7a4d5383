/**
 * The open MCP sessions of a session-ful HTTP server: one SDK server and
 * transport each, found by the `mcp-session-id` header, closed when the
 * client ends them (DELETE), when idle too long, or at shutdown.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Logger } from "../util/log.js";
import type { Refusal } from "./guard.js";

interface Session {
  /** Who opened it (a token's key): nobody else may use it. */
  owner: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** Sessions being opened, by owner: counted against the limits before the initialize completes. */
  private readonly opening = new Map<string, number>();

  constructor(private readonly options: { idleMs: number; max: number; maxPerOwner: number; logger: Logger }) {}

  get size(): number {
    return this.byId.size;
  }

  /** Why `owner` may not open another session now (the server's limit, or its own share), or undefined. */
  refuses(owner: string): Refusal | undefined {
    const pending = [...this.opening.values()].reduce((a, b) => a + b, 0);
    if (this.byId.size + pending >= this.options.max)
      return { status: 503, message: `the server has ${this.options.max} open sessions, its limit; retry later`, headers: { "Retry-After": "5" } };
    let own = this.opening.get(owner) ?? 0;
    for (const session of this.byId.values()) if (session.owner === owner) own++;
    if (own >= this.options.maxPerOwner)
      return {
        status: 429,
        message: `this token has ${own} open sessions, its limit (metatools.http.maxSessionsPerToken); end one with DELETE /mcp`,
        headers: { "Retry-After": "5" },
      };
    return undefined;
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
  async open(server: Server, owner: string, handle: (transport: StreamableHTTPServerTransport) => Promise<void>): Promise<void> {
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.byId.set(id, { owner, server, transport, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.byId.delete(transport.sessionId);
    };
    this.opening.set(owner, (this.opening.get(owner) ?? 0) + 1);
    try {
      await server.connect(transport);
      await handle(transport);
    } finally {
      const left = this.opening.get(owner)! - 1;
      if (left) this.opening.set(owner, left);
      else this.opening.delete(owner);
    }
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
