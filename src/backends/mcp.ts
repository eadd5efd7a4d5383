/**
 * An upstream MCP server, reached over stdio, Streamable HTTP or SSE.
 */
import type { Client, PriorDiscovery, Transport } from "@modelcontextprotocol/client";
import type { CompleteRequest, CompleteResult, GetPromptResult, LoggingLevel, Prompt, ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import type { Redact } from "../util/redact.js";
import type { TokenSigner } from "../auth/signer.js";
import { priorOf, probeTimeoutMs, retryAfterProbe } from "./era.js";
import { callFailure, explainTransportError, needsLogin, OVERSIZED } from "./failures.js";
import { answerQuestions, backendClient, declaredCapabilities, promptOf, promptsOf, resourceOf, resourcesOf, toUpstream } from "./client.js";
import { sendCall } from "./call-routes.js";
import { takesTasks, type ModernCaller } from "./modern-tasks.js";
import { RawChannel } from "./raw-channel.js";
import { selfDescription } from "../registry/about.js";
import { BackendError } from "./errors.js";
import { spawnProblem, stderrProblem } from "./spawn-errors.js";
import { openTransport, StderrTail, stdioProcess } from "./transports.js";
import { stopServer } from "./process-group.js";
import type { GroupWatch } from "./reaper.js";
import type { Backend, BackendEvent, BackendInfo, CallOptions, ListedResources, ProtocolEra, ToolCallResult } from "./types.js";
import { lastLines } from "../util/text-tail.js";
import { CallingPeers, TurnTimeout } from "./peers.js";
import type { ClientFeatures } from "../model/peer.js";
import { isRemote, TRANSPORT_KINDS } from "../model/transport-kinds.js";
import { errorMessage } from "../util/errors.js";
import { theirsText } from "../security/outside.js";

export class McpBackend implements Backend {
  private client: Client | undefined;
  /** The era this server answered with at the last connect: the next connect skips the probe (`server/discover`). */
  private prior: PriorDiscovery | undefined;
  /** The child's pid while a stdio connection is open. */
  private pid: number | undefined;
  /** Set for a 2026-07-28 backend that takes tasks: how its calls are made (modern-tasks.ts). */
  private modern: ModernCaller | undefined;
  /** The clients whose calls are in progress here: where the server's elicitation and sampling requests go. */
  private readonly peers: CallingPeers;
  /** The transport of the connection being made or in use: a server still starting is stopped through it too. */
  private transport: Transport | undefined;
  private listener: (event: BackendEvent) => void = () => {};
  private closing = false;
  /** The transport's last few errors on this connection. */
  private transportErrors: string[] = [];
  private readonly stderr: StderrTail;
  /** The tools the server runs only as tasks, from its last listing. */
  private taskOnly = new Set<string>();

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
    const prior = this.prior;
    // A failed connect forgets the era: the next one asks the server again (it may have been replaced).
    this.prior = undefined;
    try {
      try {
        await this.attempt(signal, prior);
      } catch (error) {
        const retry = !signal.aborted && !this.closing ? retryAfterProbe(error, prior) : undefined;
        if (!retry) throw error;
        // A fresh transport (and process): the first one was spent by the probe. What it wrote would be told twice.
        this.stderr.clear();
        await this.attempt(signal, retry.prior, retry.patientProbe ? this.spec.connectTimeoutMs : undefined);
      }
    } catch (error) {
      const login = needsLogin(error) ?? this.signIn?.needsLogin;
      if (login) throw new BackendError("needs_login", login.message);
      const spawn = isRemote(this.spec) ? undefined : spawnProblem(error, this.spec);
      // A package npm does not have: the entry is wrong as written, not retried (each try would write another npm log).
      const unknown = spawn || isRemote(this.spec) ? undefined : stderrProblem(this.stderr.text(), this.spec, (text) => theirsText(text, 120));
      if (unknown) throw new BackendError("needs_config", `${this.namespace}: ${unknown.message}`, { fix: unknown.fix });
      throw new BackendError("connect_failed", this.describeFailure(spawn?.message ?? error), spawn ? { fix: spawn.fix } : {});
    }
  }

  /**
   * One connection attempt on a fresh client and transport. Without `prior`
   * the client finds the server's era itself (`server/discover`, falling back
   * to `initialize`); with it, it skips that probe. Throws what failed, as the SDK reports it.
   */
  private async attempt(signal: AbortSignal, prior: PriorDiscovery | undefined, probeMs = probeTimeoutMs(this.spec.connectTimeoutMs)): Promise<void> {
    const client = backendClient(this.features, probeMs, () => this.listener({ type: "tools_changed" }));
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
    answerQuestions(client, this.features, this.peers);
    // A server's log messages go to the listener (and on to clients that asked for them).
    client.setNotificationHandler("notifications/message", ({ params }) => {
      if (this.client === client) this.listener({ type: "log", level: params.level, ...(params.logger ? { logger: params.logger } : {}), data: params.data });
    });
    this.transportErrors = [];
    this.signIn?.reset();
    this.client = client;
    this.transport = transport;
    try {
      await client.connect(transport, { signal, timeout: this.spec.connectTimeoutMs, ...(prior ? { prior } : {}) });
      this.pid = stdioProcess(transport)?.pid;
      this.prior = priorOf(client);
      // A 2026-07-28 backend that takes tasks: its calls go beside the SDK client, which cannot read a task (modern-tasks.ts).
      this.modern = takesTasks(client)
        ? { client, channel: new RawChannel(transport), capabilities: declaredCapabilities(this.features), ask: this.peers.ask.bind(this.peers) }
        : undefined;
    } catch (error) {
      if (this.client === client) this.client = undefined;
      // The SDK closes the transport too, the probe's failure included.
      await client.close().catch(() => {});
      throw error;
    }
  }

  /** The era the server spoke when last listed (the snapshot): a 2025 server is greeted with `initialize` at once, no probe first. */
  knownEra(era: ProtocolEra): void {
    if (this.prior === undefined && era === "legacy") this.prior = { kind: "legacy" };
  }

  info(): BackendInfo | undefined {
    const info = this.client?.getServerVersion();
    if (!info) return undefined;
    const protocolVersion = this.client?.getNegotiatedProtocolVersion();
    const era: ProtocolEra | undefined = this.client?.getProtocolEra();
    const said = selfDescription({ title: info.title, description: info.description, instructions: this.client?.getInstructions() });
    return { name: info.name, version: info.version, ...(protocolVersion ? { protocolVersion } : {}), ...(era ? { era } : {}), ...said };
  }

  async listTools(signal?: AbortSignal): Promise<UpstreamTool[]> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.tools) return [];
    // Every page (the SDK walks them, up to MAX_LIST_PAGES), never from the SDK's response cache: a listing follows a change.
    const result = await client.listTools(undefined, { signal, timeout: this.spec.connectTimeoutMs, cacheMode: "bypass" });
    this.taskOnly = new Set(result.tools.filter((tool) => tool.execution?.taskSupport === "required").map((tool) => tool.name));
    return result.tools.map(toUpstream);
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    const client = this.client;
    if (!client?.getServerCapabilities()?.logging) return;
    // logging/setLevel is a 2025 request: a 2026-07-28 server has none (it logs as it sees fit).
    if (client.getProtocolEra() !== "legacy") return;
    await client.setLoggingLevel(level, { timeout: this.spec.connectTimeoutMs }).catch(() => {});
  }

  listPrompts(signal?: AbortSignal): Promise<Prompt[]> {
    return promptsOf(this.requireClient(), { signal, timeoutMs: this.spec.connectTimeoutMs });
  }

  getPrompt(name: string, args: Record<string, string>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<GetPromptResult> {
    return promptOf(this.requireClient(), this.namespace, name, args, options);
  }

  async complete(params: CompleteRequest["params"], options: { signal?: AbortSignal; timeoutMs: number }): Promise<CompleteResult> {
    const client = this.requireClient();
    if (!client.getServerCapabilities()?.completions) return { completion: { values: [] } };
    return (await client.complete(params as never, { signal: options.signal, timeout: options.timeoutMs })) as CompleteResult;
  }

  listResources(signal?: AbortSignal): Promise<ListedResources> {
    return resourcesOf(this.requireClient(), { signal, timeoutMs: this.spec.connectTimeoutMs });
  }

  readResource(uri: string, options: { signal?: AbortSignal; timeoutMs: number }): Promise<ReadResourceResult> {
    return resourceOf(this.requireClient(), this.namespace, uri, options);
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
      return await sendCall(
        client,
        { taskOnly: this.taskOnly.has(name), modern: this.modern?.client === client ? this.modern : undefined },
        name,
        args,
        options,
      );
    } catch (error) {
      // Without a usable token no call can work: the manager waits for a sign-in. A missing scope fails this call only.
      const login = options.signal?.aborted ? undefined : needsLogin(error);
      if (login?.reason === "login") this.listener({ type: "needs_login", message: login.message });
      throw callFailure(error, {
        what: `${this.namespace}:${name}`,
        timeoutMs: options.timeoutMs,
        aborted: options.signal?.aborted === true,
        closed: () => this.stderrError(`${this.namespace} closed the connection${explainTransportError(this.transportErrors)}`).message,
      });
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
    this.modern?.channel.close(new Error("the connection closed"));
    this.modern = undefined;
    await stopServer(
      client?.close().catch(() => {}),
      child,
      connected,
    );
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
    return `${this.namespace} (${what}) failed to start: ${base}${tail ? `; its stderr ends with: ${lastLines(theirsText(tail), TAIL_CHARS)}` : ""}`;
  }

  private stderrError(message: string): Error {
    const tail = this.stderr.text();
    return new Error(tail ? `${message}; stderr ends with: ${lastLines(theirsText(tail), TAIL_CHARS)}` : message);
  }
}

/** How much of a stderr tail an error quotes. */
const TAIL_CHARS = 600;
