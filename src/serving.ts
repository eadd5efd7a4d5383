/**
 * Puts the app behind MCP: one server per session, its instructions computed
 * when the session starts. Transports (stdio here, HTTP in src/http/) only decide
 * how sessions arrive.
 */
import { ProtocolError, ProtocolErrorCode, type JSONRPCMessage, type Server } from "@modelcontextprotocol/server";
import { serveStdio as serveStdioEntry, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { PassThrough } from "node:stream";
import { JsonLines, type RefusedLine } from "./util/json-frame.js";
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
}

/** An MCP server for one session. */
export function createSessionServer(app: Metatools, options: SessionOptions = {}): Server {
  const { logger, tools = servedTools(app), principal, oneRequest = false, profile, ready } = options;
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
      if (session) app.notices.changed(session, NAMESPACES_TOPIC, namespacesLine(shown));
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

/**
 * Serves on stdin/stdout, to a client of either era: its first message
 * picks (an `initialize`: 2025-11-25 with a session; a request carrying the
 * 2026-07-28 envelope: stateless). Backends start at once; the first answer
 * waits for them at most `startupGraceMs` (stdin buffers meanwhile), so the
 * instructions can list what connected, and a slow backend delays nothing more.
 *
 * stdin is read from the first moment, whatever phase startup is in, and
 * passed to the transport once it connects: the client leaving (stdin's
 * end) or a signal at any point, even before the first message, stops
 * what started in order (backends, stores) and resolves `closed`.
 */
export async function serveStdio(app: Metatools, logger: Logger, options: { profile?: string } = {}): Promise<{ closed: Promise<void> }> {
  const { profile } = options;
  let entry: { close(): Promise<void> } | null = null;
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing = false;
  // A message refused before the transport reads it is answered as the transport would answer an invalid request: by its id.
  const refusals: RefusedLine[] = [];
  const answering: { send?: (refused: RefusedLine) => void } = {};
  const input = readInput(process.stdin, (refused) => {
    const what = refused.request ? "message" : "response of the client's";
    logger.warn(`stdio: refused a ${what} of ${refused.bytes} bytes${refused.id === null ? "" : ` (id ${JSON.stringify(refused.id)})`}: ${refused.reason}`);
    // A request is answered by its id (a notification with none, as JSON-RPC answers a request it cannot identify); a response to one of ours is only dropped.
    if (!refused.request) return;
    if (answering.send) answering.send(refused);
    else refusals.push(refused);
  });
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    // Nothing more is read: a stdin left open (a signal came) no longer holds the process.
    input.stop();
    await app.close();
    if (entry) await entry.close().catch(() => {});
    logger.info(`${why}: stopped`);
    resolveClosed();
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void shutdown(signal));
  void input.ended.then(() => shutdown("stdin closed"));
  // The one client's first message says what it can answer: backends are told exactly that (elicitation, sampling).
  const declared = clientCapabilities(await input.firstLine(FIRST_MESSAGE_MS));
  if (closing) return { closed };
  void app.start(declared && { clientFeatures: { elicitation: declared.elicitation !== undefined, sampling: declared.sampling !== undefined } });
  // Answered at once: the handshake and the tool list from what is known (the snapshot); calls wait for the backends up to the grace.
  const ready = app.backends.waitForStartup(app.config.timeouts.startupGraceMs);
  // Past its reader's bound the SDK closes the transport: every message reaching it is under metatools' own bound.
  const transport = new StdioServerTransport(input.stream, undefined, { maxBufferSize: STDIO_MAX_MESSAGE_BYTES + (64 << 10) });
  answering.send = (refused) =>
    void transport.send({ jsonrpc: "2.0", id: refused.id, error: { code: -32600, message: refused.reason } } as JSONRPCMessage).catch(() => {});
  for (const refused of refusals.splice(0)) answering.send(refused);
  // The entry owns the transport: it picks the era from the opening message and pins one server for the connection.
  entry = serveStdioEntry(() => createSessionServer(app, { logger, profile, ready }), {
    transport,
    // An error that closes the transport is said at warn (the connection ends with it); a message it could not use, at debug.
    onerror: (error) => (CLOSES.test(error.message) ? logger.warn(`stdio: ${error.message}; the connection closes`) : logger.debug(`stdio: ${error.message}`)),
  });
  const closedTransport = transport.onclose;
  transport.onclose = () => {
    closedTransport?.();
    void shutdown("the transport closed");
  };
  logger.info(`serving on stdio; ${app.registry.size} tools from ${app.registry.namespaces().length} namespaces so far`);
  return { closed };
}

const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The SDK's stdio errors after which its transport closes. */
const CLOSES = /ReadBuffer exceeded|EPIPE|write after end/;

/** How long `serve` waits for its client's first message before starting the backends anyway (declaring both features). */
const FIRST_MESSAGE_MS = 1000;

/** The capabilities a first message declares: an `initialize`'s, or a 2026-07-28 request's envelope; undefined for anything else. */
function clientCapabilities(line: string | undefined): { elicitation?: unknown; sampling?: unknown } | undefined {
  if (!line) return undefined;
  try {
    const message = JSON.parse(line) as { method?: unknown; params?: { capabilities?: unknown; _meta?: Record<string, unknown> } };
    const capabilities = message.method === "initialize" ? message.params?.capabilities : message.params?._meta?.[CLIENT_CAPABILITIES_META_KEY];
    return capabilities && typeof capabilities === "object" ? (capabilities as { elicitation?: unknown; sampling?: unknown }) : {};
  } catch {
    return undefined;
  }
}

/**
 * The most bytes one stdio message may take: the SDK reader's own bound, which closes the transport past it; metatools
 * refuses such a message itself first (json-frame.ts) and keeps serving.
 */
export const STDIO_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * A client's input, read from the start: `stream` holds every accepted
 * message for the transport (buffered until it connects), `firstLine` the
 * first message (undefined after `ms`, or at the end), `ended` settles when
 * the client closes its side, and `stop` reads no more. A message larger
 * than STDIO_MAX_MESSAGE_BYTES or nested deeper than MAX_JSON_DEPTH never
 * reaches the transport: `onRefused` gets its id and why.
 */
function readInput(
  stdin: NodeJS.ReadStream,
  onRefused: (refused: RefusedLine) => void,
): { stream: PassThrough; firstLine(ms: number): Promise<string | undefined>; ended: Promise<void>; stop(): void } {
  const stream = new PassThrough();
  let line: string | undefined;
  let settle: ((line: string | undefined) => void) | undefined;
  let resolveEnded: () => void;
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  const lines = new JsonLines(
    { maxBytes: STDIO_MAX_MESSAGE_BYTES },
    (accepted) => {
      stream.write(accepted);
      if (line !== undefined) return;
      line = accepted.subarray(0, Math.min(accepted.length - 1, 1 << 20)).toString("utf8");
      settle?.(line);
    },
    onRefused,
  );
  const onData = (chunk: Buffer) => lines.push(chunk);
  const onEnd = () => {
    lines.end();
    stream.end();
    settle?.(line);
    resolveEnded();
  };
  stdin.on("data", onData);
  stdin.once("end", onEnd);
  return {
    stream,
    ended,
    firstLine: (ms) =>
      line !== undefined || stdin.readableEnded
        ? Promise.resolve(line)
        : new Promise((resolve) => {
            const timer = setTimeout(() => settle?.(undefined), ms);
            timer.unref();
            settle = (found) => {
              settle = undefined;
              clearTimeout(timer);
              resolve(found);
            };
          }),
    stop: () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.pause();
    },
  };
}
