/**
 * What the MCP plumbing is handed: the served tools, what each call is told
 * (`CallExtra`), and what a server is made from (`ServerDefinition`).
 */
import type {
  CompleteRequest,
  CompleteResult,
  CallToolResult,
  GetPromptResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from "@modelcontextprotocol/server";
import type { ClientPeer } from "../model/peer.js";
import type { QuestionRelay } from "./questions.js";
import type { TaskBoard } from "./tasks.js";

export interface ServedTool {
  name: string;
  description: string;
  inputSchema: Tool["inputSchema"];
  annotations?: Tool["annotations"];
  /** Passed on with the definition (`tools/list`), such as `anthropic/alwaysLoad`. */
  _meta?: Record<string, unknown>;
  /**
   * Handles one call. Expected failures are returned as content; a throw is
   * a fault and becomes `isError: true` with the message as text.
   */
  call(args: Record<string, unknown>, extra: CallExtra): Promise<CallToolResult>;
}

export interface CallExtra {
  /** Aborted when the client cancels the request (or the session ends). */
  signal: AbortSignal;
  /** Present when the client asked for progress (`_meta.progressToken`): sends it a progress notification. */
  onProgress?: (update: { progress: number; total?: number; message?: string }) => void;
  /** Who the call is made for, as the server was told (`ServerDefinition.principal`). */
  principal?: string;
  /** The caller alone, under any profile (`ServerDefinition.caller`): whose shares the call takes. */
  caller?: string;
  /** The client of this session: what it declared, and how to ask it (elicitation, sampling) during this call. */
  peer?: ClientPeer;
  /** This session's id, made by the server: calls of one session share it. */
  session?: string;
  /** The profile the caller was given (src/security/profiles.ts): which tools it sees, which calls need an approval. Unset: the default profile. */
  profile?: string;
  /** A person typed this call (`metatools run` at a terminal): that is its approval. Never set by a server. */
  typed?: boolean;
}

export interface ServerDefinition {
  name: string;
  version: string;
  /** Computed when a session starts (`session`: its id, unset for one request), so it can describe what is connected then. */
  instructions: (session?: string) => string;
  /**
   * Settles when the backends have started, or their start-up grace is
   * over: tool calls, resources, prompts and completions wait for it; the
   * handshake and the tool list are answered at once. Unset: nothing waits.
   */
  ready?: Promise<unknown>;
  tools: readonly ServedTool[];
  /**
   * Who every call on this server is made for: an opaque id the transport
   * established (over HTTP, the bearer token's), handed to each call as
   * `extra.principal`. A server serves one session, and a session one caller.
   */
  principal?: string;
  /**
   * The caller alone, whatever profile it was given: its bearer token's
   * principal (or the local user). What it may hold at once (calls,
   * questions, task records) and what it teaches search are counted by
   * this, so one token on several paths is one caller. Unset: `principal`.
   */
  caller?: string;
  /** The profile every call on this server gets (src/security/profiles.ts), handed to each as `extra.profile`. */
  profile?: string;
  /** The server answers a single request (stateless HTTP): its calls carry no session id. */
  oneRequest?: boolean;
  /** Where a 2026-07-28 client's calls wait while a backend's question goes to it as a result; unset: such a client is told it cannot be asked. */
  questions?: QuestionRelay;
  /** Where a long call of a 2026-07-28 client that takes tasks becomes a task (`tasks/get`, `tasks/update`, `tasks/cancel`); unset: no tasks. */
  tasks?: TaskBoard;
  /** Where faults are reported (stderr); never stdout. */
  onFault?: (tool: string, error: unknown) => void;
  /**
   * Reads a resource by a link a tool's result handed out (`resources/read`).
   * No resource is listed: the links come with results. Rejects with an
   * McpError when the link is unknown or the read fails.
   */
  readResource?(uri: string, extra: { signal: AbortSignal; principal?: string }): Promise<ReadResourceResult>;
  /** The backends' resources and templates this caller may see, under metatools:// names (`resources/list`, `resources/templates/list`). */
  listResources?(signal: AbortSignal): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }>;
  /** Suggestions for an argument of a backend's prompt or resource template (`completion/complete`). */
  complete?(params: CompleteRequest["params"], signal: AbortSignal): Promise<CompleteResult>;
  /** The backends' prompts this caller may see, named `namespace:name`; `get` rejects with a ProtocolError for an unknown or failing one. */
  prompts?: {
    list(signal: AbortSignal): Promise<Prompt[]>;
    get(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult>;
  };
  /**
   * Log messages for this session's client (MCP logging): called once with
   * the function that sends one; returns how the client's chosen level is
   * set, and the close that stops the messages when the server closes.
   */
  logging?(send: (message: { level: LoggingLevel; logger: string; data: unknown }) => void): { setLevel(level: LoggingLevel): void; close(): void };
}
