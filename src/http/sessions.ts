/**
 * The open MCP sessions of a session-ful HTTP server (2025-11-25 clients;
 * a 2026-07-28 client has no session, mcp-endpoint.ts): one SDK server and
 * transport each, found by the `mcp-session-id` header, closed when the
 * client ends them (DELETE), when idle too long, or at shutdown. Idle means
 * nothing open (see activity.ts): no request in flight, no event stream
 * connected, for `idleMs` since the last of them ended.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport as StreamableHTTPServerTransport } from "@modelcontextprotocol/node";
import type { Server } from "@modelcontextprotocol/server";
import type { Logger } from "../util/log.js";
import { Activity } from "./activity.js";
import type { Refusal } from "./guard.js";

interface Session {
  /** Who opened it (a token's key and its profile): nobody else may use it, nor that token under another profile. */
  owner: string;
  /** The token alone: what a token's share of sessions is counted by, whatever path or profile it came by. */
  token: string;
  server: Server;
  transport: StreamableHTTPServerTransport;
  activity: Activity;
}

export class Sessions {
  private readonly byId = new Map<string, Session>();
  /** Sessions being opened, by token: counted against the limits before the initialize completes. */
  private readonly opening = new Map<string, number>();

  constructor(private readonly options: { idleMs: number; max: number; maxPerOwner: number; logger: Logger }) {}

  get size(): number {
    return this.byId.size;
  }

  /** How often to sweep: every half idle limit (every 30 s at most), so a session goes at most half its limit late. */
  get sweepEveryMs(): number {
    return Math.min(30_000, Math.ceil(this.options.idleMs / 2));
  }

  /** Why `token` may not open another session now (the server's limit, or its own share, under every profile together), or undefined. */
  refuses(token: string): Refusal | undefined {
    const pending = [...this.opening.values()].reduce((a, b) => a + b, 0);
    if (this.byId.size + pending >= this.options.max)
      return { status: 503, message: `the server has ${this.options.max} open sessions, its limit; retry later`, headers: { "Retry-After": "5" } };
    let own = this.opening.get(token) ?? 0;
    for (const session of this.byId.values()) if (session.token === token) own++;
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
    return session?.owner === owner ? session : undefined;
  }

  /** Hands a request to its session; the session is busy until the response closes. Call it right after `get`, with no await between. */
  async serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    session.activity.exchange(res);
    await session.transport.handleRequest(req, res, body);
  }

  /**
   * Starts a session for a request without an id. The transport keeps it
   * only if the request was an initialize; otherwise it has answered with an
   * error, and the pair is dropped.
   */
  async open(server: Server, { owner, token }: { owner: string; token: string }, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const activity = new Activity(this.options.logger, () => transport.sessionId ?? "(opening)");
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.byId.set(id, { owner, token, server, transport, activity });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.byId.delete(transport.sessionId);
    };
    this.opening.set(token, (this.opening.get(token) ?? 0) + 1);
    try {
      await server.connect(transport);
      activity.watch(transport);
      activity.exchange(res);
      await transport.handleRequest(req, res, body);
    } finally {
      const left = this.opening.get(token)! - 1;
      if (left) this.opening.set(token, left);
      else this.opening.delete(token);
    }
    if (!transport.sessionId) await close(server, transport);
  }

  /** Closes the sessions that have had nothing open for the idle limit. */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.byId) {
      const { activity } = session;
      if (activity.busy || now - activity.idleSince < this.options.idleMs) continue;
      this.options.logger.info(`closing session ${id}: idle for ${Math.round((now - activity.idleSince) / 1000)} s`);
      this.byId.delete(id);
      void close(session.server, session.transport);
    }
  }

  /** Closes every session; a request still open is answered with an error naming `reason` first, so its client is not left waiting. */
  async closeAll(reason = "the server is shutting down"): Promise<void> {
    const all = [...this.byId.values()];
    this.byId.clear();
    await Promise.all(
      all.map(async (s) => {
        await close(s.server, s.transport, s.activity, reason);
        // The answers and the streams' ends are written asynchronously: they must reach the client before the caller cuts connections.
        await s.activity.quiet(CLOSE_FLUSH_MS);
      }),
    );
  }
}

/** How long closing all sessions waits for their responses to end. */
const CLOSE_FLUSH_MS = 250;

async function close(server: Server, transport: StreamableHTTPServerTransport, activity?: Activity, reason?: string): Promise<void> {
  if (activity && reason) await activity.abandon(transport, reason);
  await transport.close().catch(() => {});
  await server.close().catch(() => {});
}
