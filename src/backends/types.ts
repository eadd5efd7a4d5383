/**
 * The one narrow interface every backend implements: upstream MCP servers,
 * catalog-only tool sets, and built-in backends (code intelligence, metatools' own tools).
 */
import type {
  CallToolResult,
  CompleteRequest,
  CompleteResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import type { ProgramHost } from "../model/program.js";
import type { ClientPeer } from "../model/peer.js";

export type { ClientPeer } from "../model/peer.js";
import type { TransportKind } from "../model/transport-kinds.js";
import type { UpstreamTool } from "../model/tool.js";

export type ToolCallResult = CallToolResult;

export interface BackendInfo {
  /** The server's self-reported MCP `serverInfo.name`; catalog files match on it. */
  name: string;
  version?: string;
  /** The MCP protocol version negotiated with the server (e.g. "2025-11-25", "2026-07-28"), for MCP backends. */
  protocolVersion?: string;
  /** Which era of MCP the server speaks: "legacy" (`initialize`, up to 2025-11-25) or "modern" (`server/discover`, 2026-07-28 on). */
  era?: ProtocolEra;
  /** What the server says of itself: its `serverInfo` title and description, and its instructions. Search indexes them (src/registry/about.ts). */
  title?: string;
  description?: string;
  instructions?: string;
}

/** The two eras of MCP a backend may speak. */
export type ProtocolEra = "legacy" | "modern";

/** One MCP progress notification, as the backend sent it. */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export interface CallOptions {
  /** Aborting it cancels the upstream request (MCP `notifications/cancelled`). */
  signal?: AbortSignal;
  timeoutMs: number;
  /** Set when the caller wants progress: the backend is asked for it, and each notification is passed on. */
  onProgress?: (update: ProgressUpdate) => void;
  /** The client the call came from, for the requests a backend sends back while it runs. */
  peer?: ClientPeer;
  /**
   * Who the call is made for (an opaque id). Built-in tools scope what they
   * keep by it (output handles); upstream servers are not told.
   */
  principal: string;
  /** Where a built-in tool that runs programs sends their calls (the caller's own run_tool path); upstream servers never see it. */
  host?: ProgramHost;
}

export type BackendEvent =
  /** The backend announced `notifications/tools/list_changed`. */
  | { type: "tools_changed" }
  /** The connection ended without `close()` being called. */
  | { type: "disconnected"; error?: Error }
  /** The server refused every credential it has: nothing runs until a person signs in (`metatools auth login`). */
  | { type: "needs_login"; message: string }
  /** A log message the server sent (`notifications/message`). */
  | BackendLog;

/** A server's log message, as MCP carries it. */
export interface BackendLog {
  type: "log";
  level: LoggingLevel;
  /** The server's own logger name, if it gave one. */
  logger?: string;
  data: unknown;
}

/** What a backend lists of its resources. */
export interface ListedResources {
  resources: Resource[];
  templates: ResourceTemplate[];
}

export interface Backend {
  readonly namespace: string;
  readonly kind: TransportKind;
  /** False for catalog-only backends: their tools can be searched and described, not run. */
  readonly runnable: boolean;
  /** Connects (spawns, handshakes). Rejects with a message that names the cause. */
  connect(signal: AbortSignal): Promise<void>;
  info(): BackendInfo | undefined;
  /** The era the server spoke when last listed (the snapshot): its next connect may skip asking. */
  knownEra?(era: ProtocolEra): void;
  /** Every tool, all pages. */
  listTools(signal?: AbortSignal): Promise<UpstreamTool[]>;
  callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult>;
  /** Asks the server to send log messages of `level` and above (`logging/setLevel`), if it logs. */
  setLogLevel?(level: LoggingLevel): Promise<void>;
  /** The server's prompts (`prompts/list`, every page); undefined: it serves none. */
  listPrompts?(signal?: AbortSignal): Promise<Prompt[]>;
  /** One prompt filled in (`prompts/get`). */
  getPrompt?(name: string, args: Record<string, string>, options: { signal?: AbortSignal; timeoutMs: number }): Promise<GetPromptResult>;
  /** Suggestions for an argument of one of its prompts or resource templates (`completion/complete`); none when it offers none. */
  complete?(params: CompleteRequest["params"], options: { signal?: AbortSignal; timeoutMs: number }): Promise<CompleteResult>;
  /** The server's resources and resource templates (`resources/list`, `resources/templates/list`, every page). */
  listResources?(signal?: AbortSignal): Promise<ListedResources>;
  /** Reads one of the backend's resources (`resources/read`); undefined: it serves none. */
  readResource?(uri: string, options: { signal?: AbortSignal; timeoutMs: number }): Promise<ReadResourceResult>;
  /**
   * For a backend that signs in (OAuth): calls `listener` when its stored
   * sign-in changes, so one waiting for a sign-in connects at once; returns
   * the unwatch. Undefined: it never signs in.
   */
  watchSignIn?(listener: () => void): (() => void) | undefined;
  /** One listener; set before `connect`. */
  onEvent(listener: (event: BackendEvent) => void): void;
  close(): Promise<void>;
}
