/**
 * An MCP backend whose code (the SDK's client, its transports, the era
 * probe: mcp.ts and what it imports) is loaded at its first connect, not
 * when metatools starts: a CLI search or describe answered from the
 * snapshot, which connects nothing, never loads it. Until then it answers
 * what needs no connection (its namespace, kind, sign-in watch); every
 * other call loads the backend and goes to it.
 */
import type { CompleteRequest, LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import type { TokenSigner } from "../auth/signer.js";
import type { RemoteBackendSpec, StdioBackendSpec } from "../config/resolved.js";
import type { ClientFeatures } from "../model/peer.js";
import type { Redact } from "../util/redact.js";
import type { McpBackend } from "./mcp.js";
import type { GroupWatch } from "./reaper.js";
import type { Backend, BackendEvent, CallOptions, ProtocolEra } from "./types.js";

type Options = { signal?: AbortSignal; timeoutMs: number };

export class LazyMcpBackend implements Backend {
  readonly runnable = true;
  private loaded: Promise<McpBackend> | undefined;
  private real: McpBackend | undefined;
  private listener: ((event: BackendEvent) => void) | undefined;
  private era: ProtocolEra | undefined;

  constructor(
    private readonly spec: StdioBackendSpec | RemoteBackendSpec,
    private readonly redact?: Redact,
    private readonly signIn?: TokenSigner,
    private readonly features?: ClientFeatures,
    private readonly groups?: GroupWatch,
  ) {}

  get namespace(): string {
    return this.spec.namespace;
  }

  get kind(): (StdioBackendSpec | RemoteBackendSpec)["kind"] {
    return this.spec.kind;
  }

  onEvent(listener: (event: BackendEvent) => void): void {
    this.listener = listener;
    this.real?.onEvent(listener);
  }

  watchSignIn(listener: () => void): (() => void) | undefined {
    return this.signIn?.watch(listener);
  }

  knownEra(era: ProtocolEra): void {
    this.era = era;
    this.real?.knownEra(era);
  }

  info() {
    return this.real?.info();
  }

  async connect(signal: AbortSignal): Promise<void> {
    return (await this.load()).connect(signal);
  }

  async listTools(signal?: AbortSignal) {
    return (await this.load()).listTools(signal);
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions) {
    return (await this.load()).callTool(name, args, options);
  }

  async setLogLevel(level: LoggingLevel): Promise<void> {
    return (await this.load()).setLogLevel(level);
  }

  async listPrompts(signal?: AbortSignal) {
    return (await this.load()).listPrompts(signal);
  }

  async getPrompt(name: string, args: Record<string, string>, options: Options) {
    return (await this.load()).getPrompt(name, args, options);
  }

  async complete(params: CompleteRequest["params"], options: Options) {
    return (await this.load()).complete(params, options);
  }

  async listResources(signal?: AbortSignal) {
    return (await this.load()).listResources(signal);
  }

  async readResource(uri: string, options: Options) {
    return (await this.load()).readResource(uri, options);
  }

  /** Nothing to close before the first connect: no code loaded, no process, no connection. */
  async close(): Promise<void> {
    if (this.loaded) await (await this.loaded).close();
  }

  private load(): Promise<McpBackend> {
    this.loaded ??= import("./mcp.js").then(({ McpBackend }) => {
      const real = new McpBackend(this.spec, this.redact, this.signIn, this.features, this.groups);
      if (this.listener) real.onEvent(this.listener);
      if (this.era) real.knownEra(this.era);
      this.real = real;
      return real;
    });
    return this.loaded;
  }
}
