/**
 * A configured server whose entry cannot be used as written (a `${VAR}`
 * that is not set, a bad field): it stands in the backend list so doctor,
 * search's `unavailable` and run_tool can say what a person must fix, and
 * every "connect" fails at once with that fix, starting nothing.
 */
import type { UnresolvedServer } from "../config/resolved.js";
import type { UpstreamTool } from "../model/tool.js";
import { BackendError } from "./errors.js";
import type { Backend, BackendInfo, ToolCallResult } from "./types.js";

export class UnconfiguredBackend implements Backend {
  readonly runnable = true;

  constructor(private readonly server: UnresolvedServer) {}

  get namespace(): string {
    return this.server.namespace;
  }

  get kind(): UnresolvedServer["kind"] {
    return this.server.kind;
  }

  onEvent(): void {}

  async connect(): Promise<void> {
    throw this.refusal();
  }

  info(): BackendInfo | undefined {
    return undefined;
  }

  async listTools(): Promise<UpstreamTool[]> {
    return [];
  }

  async callTool(): Promise<ToolCallResult> {
    throw this.refusal();
  }

  async close(): Promise<void> {}

  private refusal(): BackendError {
    return new BackendError("needs_config", `${this.namespace}: ${this.server.problem}`, { fix: this.server.fix });
  }
}
