/**
 * `metatools serve` on stdin/stdout.
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { serveStdio as serveStdioEntry, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Metatools } from "../app.js";
import { instructions, namespacesLine } from "../meta/instructions.js";
import { scopedFor } from "../meta/scoped.js";
import { createSessionServer } from "../serving.js";
import type { RefusedLine } from "../util/json-frame.js";
import type { Logger } from "../util/log.js";
import { Handshake, type Answered, type KeptHandshake } from "./handshake.js";
import { readInput, STDIO_MAX_MESSAGE_BYTES } from "./input.js";

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
/** How `serve` started on stdio: what its quick start (src/cli/quick-start.ts) read and answered, and where the answers are kept for the next launch. */
export interface StdioStart {
  profile?: string;
  /** Bytes of stdin read before the server: its first messages. */
  prefix?: Buffer;
  /** The requests already answered (the server's own answers to them are not sent), and the namespaces named. */
  answered?: Answered;
  /** Keeps the server's answers to the handshake for the next launch (src/stdio/handshake.ts). */
  remember?: (kept: KeptHandshake) => void;
}

export async function serveStdio(app: Metatools, logger: Logger, options: StdioStart = {}): Promise<{ closed: Promise<void> }> {
  const { profile, answered, remember } = options;
  const handshake = new Handshake(answered, remember, () => {
    const shown = scopedFor(app, profile);
    return { instructions: instructions(shown), namespaces: namespacesLine(shown) };
  });
  let entry: { close(): Promise<void> } | null = null;
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing = false;
  // A message refused before the transport reads it is answered as the transport would answer an invalid request: by its id.
  const refusals: RefusedLine[] = [];
  const answering: { send?: (refused: RefusedLine) => void } = {};
  const input = readInput(
    process.stdin,
    options.prefix,
    (refused) => {
      const what = refused.request ? "message" : "response of the client's";
      logger.warn(`stdio: refused a ${what} of ${refused.bytes} bytes${refused.id === null ? "" : ` (id ${JSON.stringify(refused.id)})`}: ${refused.reason}`);
      // A request is answered by its id (a notification with none, as JSON-RPC answers a request it cannot identify); a response to one of ours is only dropped.
      if (!refused.request) return;
      if (answering.send) answering.send(refused);
      else refusals.push(refused);
    },
    (line) => handshake.heard(line),
  );
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    // Nothing more is read: a stdin left open (a signal came) no longer holds the process.
    input.stop();
    handshake.keep();
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
  // The handshake's answers: kept for the next launch; not sent again when the quick start sent them.
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage) => (handshake.sending(message) ? send(message) : Promise.resolve());
  answering.send = (refused) =>
    void transport.send({ jsonrpc: "2.0", id: refused.id, error: { code: -32600, message: refused.reason } } as JSONRPCMessage).catch(() => {});
  for (const refused of refusals.splice(0)) answering.send(refused);
  // The entry owns the transport: it picks the era from the opening message and pins one server for the connection.
  entry = serveStdioEntry(() => createSessionServer(app, { logger, profile, ready, ...(answered?.namespaces ? { told: answered.namespaces } : {}) }), {
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
  if (answered?.ids.length) logger.info(`the handshake was answered at once, as the last launch over this config answered it`);
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
