/**
 * Puts the app behind MCP: one server per session, its instructions computed
 * when the session starts. Transports (stdio here, HTTP in src/http/) only decide
 * how sessions arrive.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Metatools } from "./app.js";
import { instructions } from "./meta/instructions.js";
import { servedTools } from "./meta/index.js";
import { createMcpServer, type ServedTool } from "./server/mcp.js";
import type { Logger } from "./util/log.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { LOCAL_PRINCIPAL } from "./security/principal.js";

const RESOURCE_NOT_FOUND = -32002;
import { packageVersion } from "./util/version.js";

/**
 * An MCP server for one session. HTTP passes one set of `tools` to all its
 * sessions, so their validators compile once, and the session's `principal`
 * (its bearer token's); without one, calls are the local user's.
 */
export function createSessionServer(
  app: Metatools,
  logger?: Logger,
  tools: readonly ServedTool[] = servedTools(app),
  principal?: string,
  oneRequest = false,
): Server {
  return createMcpServer({
    oneRequest,
    name: "metatools",
    version: packageVersion(),
    instructions: () => instructions(app),
    tools,
    principal,
    onFault: (tool, error) => logger?.error(`${tool} fault: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
    logging: (send) => app.clientLog.open(send),
    readResource: async (uri, { signal, principal: caller }) => {
      const outcome = await app.resources.read(uri, caller ?? LOCAL_PRINCIPAL, signal);
      if (outcome.kind === "ok") return outcome.result;
      // -32002: "resource not found", as the MCP spec names it.
      throw new McpError(outcome.kind === "unknown" ? RESOURCE_NOT_FOUND : ErrorCode.InternalError, outcome.message);
    },
  });
}

/**
 * Serves on stdin/stdout. Backends start at once; the handshake waits for
 * them at most `startupGraceMs` (stdin buffers meanwhile), so the
 * instructions can list what connected, and a slow backend delays nothing more.
 */
export async function serveStdio(app: Metatools, logger: Logger): Promise<{ closed: Promise<void> }> {
  let server: Server | null = null;
  let resolveClosed: () => void;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  let closing = false;
  const shutdown = async () => {
    if (closing) return;
    closing = true;
    await app.close();
    // Closing the server stops reading stdin; closed before it served, stdin is still read (firstLine), and would hold the process.
    if (server) await server.close().catch(() => {});
    else process.stdin.pause();
    resolveClosed();
  };
  // Before anything starts: a signal, or the client leaving, while backends start closes them in order too, not at the exit deadline.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void shutdown());
  process.stdin.once("end", () => void shutdown());
  // The one client's initialize says what it can answer: backends are told exactly that (elicitation, sampling).
  const declared = clientCapabilities(await firstLine(process.stdin, FIRST_MESSAGE_MS));
  if (declared) {
    app.clientFeatures.elicitation = declared.elicitation !== undefined;
    app.clientFeatures.sampling = declared.sampling !== undefined;
  }
  if (closing) return { closed };
  void app.start();
  await app.backends.waitForStartup(app.config.timeouts.startupGraceMs);
  if (closing) return { closed };
  server = createSessionServer(app, logger);
  const transport = new StdioServerTransport();
  server.onclose = () => void shutdown();
  await server.connect(transport);
  logger.info(`serving on stdio; ${app.registry.size} tools from ${app.registry.namespaces().length} namespaces so far`);
  return { closed };
}

/** How long `serve` waits for its client's first message before starting the backends anyway (declaring both features). */
const FIRST_MESSAGE_MS = 1000;

/** The capabilities an `initialize` request declares; undefined for anything else. */
function clientCapabilities(line: string | undefined): { elicitation?: unknown; sampling?: unknown } | undefined {
  if (!line) return undefined;
  try {
    const message = JSON.parse(line) as { method?: unknown; params?: { capabilities?: unknown } };
    const capabilities = message.method === "initialize" ? message.params?.capabilities : undefined;
    return capabilities && typeof capabilities === "object" ? (capabilities as { elicitation?: unknown; sampling?: unknown }) : {};
  } catch {
    return undefined;
  }
}

/**
 * The stream's first line, read without consuming it: what was read is
 * put back, so the transport then reads the stream from its start. Gives
 * up (undefined) after `ms`, at the stream's end, or past 1 MiB.
 */
function firstLine(stream: NodeJS.ReadStream, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    let settled = false;
    const done = (line?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.off("readable", onReadable);
      stream.off("end", onEnd);
      if (buffered.length) stream.unshift(buffered);
      resolve(line);
    };
    const onReadable = () => {
      for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) {
        buffered = Buffer.concat([buffered, chunk]);
        const end = buffered.indexOf(10);
        if (end >= 0) return done(buffered.subarray(0, end).toString("utf8"));
        if (buffered.length > 1 << 20) return done();
      }
    };
    const onEnd = () => done();
    const timer = setTimeout(() => done(), ms);
    timer.unref();
    stream.on("readable", onReadable);
    stream.on("end", onEnd);
  });
}
