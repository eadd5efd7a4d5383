/**
 * An upstream MCP server, reached over stdio, Streamable HTTP or SSE.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type LoggingLevel,
  type ReadResourceResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import type { Redact } from "../util/redact.js";
import { packageVersion } from "../util/version.js";
import { NeedsLoginError, type TokenSigner } from "../auth/signer.js";
import { sdkSchemaValidator } from "./sdk-validator.js";
import { BackendError } from "./errors.js";
import { spawnProblem } from "./spawn-errors.js";
import { openTransport, StderrTail, stdioProcess } from "./transports.js";
import type { GroupWatch } from "./reaper.js";
import type { Backend, BackendEvent, BackendInfo, CallOptions, ToolCallResult } from "./types.js";
import { lastLines } from "../util/text-tail.js";
import { CallingPeers, TurnTimeout } from "./peers.js";
import type { ClientFeatures } from "../model/peer.js";
import { isRemote, TRANSPORT_KINDS } from "../model/transport-kinds.js";
import { errorMessage } from "../util/errors.js";

export class McpBackend implements Backend {
  private client: Client | undefined;
  /** The child's pid while a stdio connection is open. */
  private pid: number | undefined;
  /** The clients whose calls are in progress here: where the server's elicitation and sampling requests go. */
  private readonly peers: CallingPeers;
  /** The transport of the connection being made or in use: a server still starting is stopped through it too. */
  private transport: Transport | undefined;
  private listener: (event: BackendEvent) => void = () => {};
  private closing = false;
  /** The transport's last few errors on this connection. */
  private transportErrors: string[] = [];
  private readonly stderr: StderrTail;

  /** `redact` cleans each stderr line as it arrives, before the tail is cut to fit a message; `signIn` signs a remote backend's requests (OAuth). */
  constructor(
    private readonly spec: StdioBackendSpec | RemoteBackendSpec,
    redact?: Redact,
    private readonly signIn?: TokenSigner,
    /** What to declare to the server (read at each connect): what the client(s) behind metatools can answer. */
    private readonly features: ClientFeatures = { elicitation: true, sampling: true },
    /** Where a stdio server's process group is reported, so it is stopped if metatools dies (reaper.ts). */
    private readonly groups?: GroupWatch,
  ) {
    this.stderr = new StderrTail(20, redact);
    this.peers = new CallingPeers(spec.namespace, redact, spec.requests);
  }

  get namespace(): string {
    return this.spec.namespace;
  }

  get kind(): (StdioBackendSpec | RemoteBackendSpec)["kind"] {
    return this.spec.kind;
  }

  get runnable(): boolean {
    return TRANSPORT_KINDS[this.spec.kind].runnable;
  }

  onEvent(listener: (event: BackendEvent) => void): void {
    this.listener = listener;
  }

  watchSignIn(listener: () => void): (() => void) | undefined {
    return this.signIn?.watch(listener);
  }

  async connect(signal: AbortSignal): Promise<void> {
    this.closing = false;
    const client = new Client(
      { name: "metatools", version: packageVersion() },
      {
        // A request comes back to the client whose call caused it, or is refused, saying why (peers.ts). Undeclared, the server is told no.
        capabilities: { ...(this.features.elicitation ? { elicitation: {} } : {}), ...(this.features.sampling ? { sampling: {} } : {}) },
        jsonSchemaValidator: sdkSchemaValidator(),
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 50, onChanged: () => this.listener({ type: "tools_changed" }) },
        },
      },
    );
    const transport: Transport = openTransport(this.spec, { stderr: this.stderr, groups: this.groups, signIn: this.signIn });
    client.onclose = () => {
      if (this.client === client && !this.closing) this.listener({ type: "disconnected", error: this.stderrError("connection closed") });
    };
    // Kept to explain a close that follows it (the SDK's stdio reader drops the connection on an oversized message).
    client.onerror = (error) => {
      if (this.client !== client) return;
      this.transportErrors = [...this.transportErrors.slice(-2), error.message];
      // An oversized answer over HTTP leaves its request unanswered: drop the connection, as the stdio reader does,
      // so the call fails now (saying why) instead of at its timeout; the backend reconnects.
      if (error.message.includes(OVERSIZED)) void client.close();
    };
    if (this.features.elicitation)
      client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.peers.ask("elicitation", request.params, extra.signal));
    if (this.features.sampling)
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => this.peers.ask("sampling", request.params, extra.signal));
    // A server's log messages go to the listener (and on to clients that asked for them).
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      if (this.client === client) this.listener({ type: "log", level: params.level, ...(params.logger ? { logger: params.logger } : {}), data: params.data });
    });
    this.transportErrors = [];
    this.signIn?.reset();
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { signal, timeout: this.spec.connectTimeoutMs });
      this.pid = stdioProcess(transport)?.pid;
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => {});
      const login = needsLogin(error) ?? this.signIn?.needsLogin;
      if (login) throw new BackendError("needs_login", login.message);
      const spawn = isRemote(this.spec) ? undefined : spawnProblem(error, this.spec);
      throw new BackendError("connect_failed", this.describeFailure(spawn?.message ?? error), spawn ? { fix: spawn.fix } : {});
    }
  }

  info(): BackendInfo | undefined {
    const info = this.client?.getServerVersion();
    return info ? { name: info.name, version: info.version } : undefined;
  }

  async listTools(signal?: AbortSignal): Promise<UpstreamTool[]> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: UpstreamTool[] = [];
    let cursor: string | undefined;
    // A misbehaving server could page forever; 1,000 pages is far beyond any real one.
    for (let page = 0; page < 1000; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: this.spec.connectTimeoutMs });
      for (const tool of result.tools) tools.push(toUpstream(tool));
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.logging) return;
    await client.setLoggingLevel(level, { timeout: this.spec.connectTimeoutMs }).catch(() => {});
  }

  async readResource(uri: string, options: { signal?: AbortSignal; timeoutMs: number }): Promise<ReadResourceResult> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.resources) throw new BackendError("upstream_error", `${this.namespace} serves no resources`);
    try {
      return await client.readResource({ uri }, { signal: options.signal, timeout: options.timeoutMs });
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        throw new BackendError("timeout", `${this.namespace} did not return ${uri} within ${options.timeoutMs} ms`);
      if (options.signal?.aborted) throw new BackendError("cancelled", `reading ${uri} from ${this.namespace} was cancelled`);
      throw new BackendError("upstream_error", `${this.namespace} could not read ${uri}: ${errorMessage(error)}`);
    }
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    const client = this.requireClient();
    let leave: () => void;
    try {
      leave = await this.peers.enter(options.peer, options.signal, options.timeoutMs);
    } catch (error) {
      if (error instanceof TurnTimeout) throw new BackendError("busy", error.message);
      throw new BackendError("cancelled", `${this.namespace}:${name} was cancelled`);
    }
    try {
      // A raw request, not client.callTool: output validation is the executor's job, with its own error shape.
      return await client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema, {
        signal: options.signal,
        timeout: options.timeoutMs,
        // Progress restarts the timeout, but never past timeoutMs in all.
        resetTimeoutOnProgress: true,
        maxTotalTimeout: options.timeoutMs,
        ...(options.onProgress ? { onprogress: ({ progress, total, message }) => options.onProgress!({ progress, total, message }) } : {}),
      });
    } catch (error) {
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new BackendError("timeout", `${this.namespace}:${name} did not answer within ${options.timeoutMs} ms`);
      }
      if (options.signal?.aborted) throw new BackendError("cancelled", `${this.namespace}:${name} was cancelled`);
      const login = needsLogin(error);
      if (login) {
        // Without a usable token no call can work: the manager waits for a sign-in. A missing scope fails this call only.
        if (login.reason === "login") this.listener({ type: "needs_login", message: login.message });
        throw new BackendError("needs_login", login.message);
      }
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
        throw new BackendError(
          "backend_down",
          this.stderrError(`${this.namespace} closed the connection${explainTransportError(this.transportErrors)}`).message,
        );
      }
      if (error instanceof McpError) throw new BackendError("upstream_error", error.message, { upstreamCode: error.code });
      throw new BackendError("upstream_error", errorMessage(error));
    } finally {
      leave();
    }
  }

  /**
   * Closes the connection. A stdio server is stopped the MCP way (its stdin
   * closed, then SIGTERM, then SIGKILL), but faster than the SDK's 2 s per
   * step, so that a server that ignores SIGTERM still lets metatools stop
   * within its own deadline, and is not left running when metatools goes.
   * On POSIX the signals go to the server's whole process group: what it
   * started goes with it.
   */
  async close(): Promise<void> {
    this.closing = true;
    const client = this.client;
    // A server still in its handshake has a process too: it is stopped the same way, not left to the SDK's slower escalation.
    const connected = this.pid !== undefined;
    const child = stdioProcess(this.transport);
    this.client = undefined;
    this.pid = undefined;
    this.transport = undefined;
    const closed = client?.close().catch(() => {});
    // A server that never finished its handshake has nothing to finish: it gets a moment, not a second.
    if (child === undefined || (await settles(closed, connected ? 1000 : 100))) return;
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (!child.signal(signal)) return; // already gone
      if (await settles(closed, 500)) return;
    }
  }

  private requireClient(): Client {
    if (!this.client) throw new BackendError("backend_down", `${this.namespace} is not connected`);
    return this.client;
  }

  /** `error`: what failed, or what a person is told of it (a spawn error, explained). */
  private describeFailure(error: unknown): string {
    const base = errorMessage(error);
    const what = isRemote(this.spec) ? this.spec.url : `command \`${[this.spec.command, ...this.spec.args].join(" ")}\``;
    const tail = this.stderr.text();
    return `${this.namespace} (${what}) failed to start: ${base}${tail ? `; its stderr ends with: ${lastLines(tail, TAIL_CHARS)}` : ""}`;
  }

  private stderrError(message: string): Error {
    const tail = this.stderr.text();
    return new Error(tail ? `${message}; stderr ends with: ${lastLines(tail, TAIL_CHARS)}` : message);
  }
}

/** The sign-in refusal behind an error, however the SDK wrapped it. */
function needsLogin(error: unknown): NeedsLoginError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) if (e instanceof NeedsLoginError) return e;
  return undefined;
}

/** True when `promise` settles within `ms`. */
function settles(promise: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([Promise.resolve(promise).then(() => true), late]).finally(() => clearTimeout(timer));
}

/** Why a connection closed, in the agent's terms, from the transport's last error. */
function explainTransportError(messages: readonly string[]): string {
  const capped = messages.find((m) => m.includes(OVERSIZED));
  if (capped) return `: ${capped.slice(capped.indexOf(OVERSIZED))}. The backend is reconnected`;
  const oversized = messages.map((m) => /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(m)).find(Boolean);
  const message = messages[0];
  if (oversized)
    return `: its answer was larger than ${Math.round(Number(oversized[1]) / 2 ** 20)} MiB, the most one MCP stdio message may be; ask for less (a smaller page, range or limit). The backend is restarted`;
  return message ? ` after an error: ${message}` : "";
}

/** The start of cappedFetch's error (transports.ts), however the SDK wraps it. */
const OVERSIZED = "the answer was larger than";

function toUpstream(tool: Tool): UpstreamTool {
  return {
    name: tool.name,
    title: tool.title ?? tool.annotations?.title,
    description: tool.description,
    inputSchema: tool.inputSchema as UpstreamTool["inputSchema"],
    outputSchema: tool.outputSchema as UpstreamTool["outputSchema"],
    annotations: tool.annotations,
  };
}

/** How much of a stderr tail an error quotes. */
const TAIL_CHARS = 600;
