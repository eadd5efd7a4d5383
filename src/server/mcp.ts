/**
 * MCP plumbing only: serves a fixed list of tools over any transport, to
 * clients of either protocol era (2025-11-25 with its handshake and
 * session, 2026-07-28 stateless: the SDK's entry points pick the era and
 * hand each one a server from here). It knows nothing of backends, search
 * or catalogs; the caller hands it tool definitions whose handlers return
 * ready content.
 */
import { randomUUID } from "node:crypto";
import { Server, type ServerContext } from "@modelcontextprotocol/server";
import type { ServerDefinition } from "./definition.js";
import { serveTasks } from "./task-methods.js";
import { TASKS_EXTENSION } from "./tasks.js";
import { callTool, type CallContext } from "./tool-call.js";

/** How long a 2026-07-28 client may keep the tool list before asking again: it changes only with what metatools serves. */
const TOOL_LIST_TTL_MS = 5 * 60_000;

/** A fresh MCP server for one session (stdio has one; HTTP has one per session, or per request for 2026-07-28 and stateless clients). */
export function createMcpServer(definition: ServerDefinition): Server {
  // A server made for one request (stateless HTTP) has no session for later calls to share.
  const session = definition.oneRequest ? undefined : randomUUID();
  const server = new Server(
    { name: definition.name, version: definition.version },
    {
      capabilities: {
        tools: { listChanged: false },
        ...(definition.readResource ? { resources: {} } : {}),
        ...(definition.prompts ? { prompts: {} } : {}),
        ...(definition.complete ? { completions: {} } : {}),
        ...(definition.logging ? { logging: {} } : {}),
        ...(definition.tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {}),
      },
      instructions: definition.instructions(session),
      // A retry's state is checked (signature, caller, expiry) before any handler runs.
      ...(definition.questions
        ? { requestState: { verify: (state: string, ctx: ServerContext) => definition.questions!.codec(definition.principal ?? "local").verify(state, ctx) } }
        : {}),
      // The same tools for everyone this profile serves, and no per-caller content: a 2026-07-28 client may cache the list.
      cacheHints: { "tools/list": { ttlMs: TOOL_LIST_TTL_MS, cacheScope: "private" } },
    },
  );
  if (definition.logging) {
    const log = definition.logging((message) => void server.sendLoggingMessage(message).catch(() => {}));
    // The level is this session's (the SDK keys levels by transport session id, which a one-session server does not need).
    server.setRequestHandler("logging/setLevel", async (request) => {
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
  // What backends serve waits for them to start (up to the grace); the handshake, the tool list and ping never do.
  const ready = definition.ready;
  const gated =
    <A extends unknown[], R>(handler: (...args: A) => R | Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (ready) await ready;
      return handler(...args);
    };
  const readResource = definition.readResource;
  if (readResource) {
    // The backends' listed resources, and beside them any link a result gave (read, never listed).
    const listed = definition.listResources;
    server.setRequestHandler(
      "resources/list",
      gated(async (_request, ctx) => ({ resources: listed ? (await listed(ctx.mcpReq.signal)).resources : [] })),
    );
    server.setRequestHandler(
      "resources/templates/list",
      gated(async (_request, ctx) => ({ resourceTemplates: listed ? (await listed(ctx.mcpReq.signal)).templates : [] })),
    );
    server.setRequestHandler(
      "resources/read",
      gated((request, ctx) => readResource(request.params.uri, { signal: ctx.mcpReq.signal, principal: definition.principal })),
    );
  }
  const prompts = definition.prompts;
  if (prompts) {
    server.setRequestHandler(
      "prompts/list",
      gated(async (_request, ctx) => ({ prompts: await prompts.list(ctx.mcpReq.signal) })),
    );
    server.setRequestHandler(
      "prompts/get",
      gated((request, ctx) => prompts.get(request.params.name, request.params.arguments ?? {}, ctx.mcpReq.signal)),
    );
  }
  const complete = definition.complete;
  if (complete)
    server.setRequestHandler(
      "completion/complete",
      gated((request, ctx) => complete(request.params, ctx.mcpReq.signal)),
    );
  const byName = new Map(definition.tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler("tools/list", async () => ({
    tools: definition.tools.map(({ name, description, inputSchema, annotations, _meta }) => ({
      name,
      description,
      inputSchema,
      annotations,
      ...(_meta ? { _meta } : {}),
    })),
  }));
  const owner = definition.principal ?? "local";
  const who = { owner, caller: definition.caller ?? owner };
  const call: CallContext = { server, definition, session, who, tasks: definition.tasks };
  const relay = definition.questions;
  if (relay) call.relay = { questions: relay, codec: relay.codec(owner) };
  if (definition.tasks) serveTasks(server, definition.tasks, who);
  server.setRequestHandler(
    "tools/call",
    gated((request, ctx) => callTool(byName, request, ctx, call)),
  );
  return server;
}
