/**
 * run_tool's domain side: resolve the id, validate the arguments against
 * the tool's input schema before any backend sees them, dispatch with a
 * timeout and cancellation. Each outcome is a tagged value; the meta-tool
 * turns it into a response.
 */
import type { BackendManager, BackendState } from "../backends/manager.js";
import { BackendError } from "../backends/errors.js";
import type { ToolCallResult } from "../backends/types.js";
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import { correctArgs, explainErrors, type FieldProblem } from "./explain.js";
import { SchemaValidator } from "./validator.js";

export type RunOutcome =
  | { kind: "ok"; record: ToolRecord; result: ToolCallResult; durationMs: number; unchecked?: string }
  | { kind: "unknown_tool"; id: string }
  | { kind: "not_runnable"; record: ToolRecord }
  | { kind: "invalid_args"; record: ToolRecord; problems: FieldProblem[]; corrected: Record<string, unknown> }
  | { kind: "backend_unavailable"; record: ToolRecord; state: BackendState | undefined }
  | { kind: "call_failed"; record: ToolRecord; code: string; message: string; durationMs: number };

export interface RunRequest {
  toolId: string;
  args: Record<string, unknown>;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ExecutorOptions {
  /** Used when neither the call nor the backend's config sets one. */
  defaultTimeoutMs: number;
  /** Refuse arguments a tool's schema does not declare, unless the schema allows extras. */
  rejectUnknownArgs: boolean;
}

export class Executor {
  private readonly validator: SchemaValidator;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly backends: BackendManager,
    private readonly options: ExecutorOptions,
  ) {
    this.validator = new SchemaValidator({ closeTopLevel: options.rejectUnknownArgs });
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const record = this.registry.get(request.toolId);
    if (!record) return { kind: "unknown_tool", id: request.toolId };
    if (!record.runnable) return { kind: "not_runnable", record };
    const check = this.validator.validate(record.inputSchema, request.args);
    if (check.ok === false) {
      return {
        kind: "invalid_args",
        record,
        problems: explainErrors(check.errors, request.args, record.inputSchema),
        corrected: this.repair(record, request.args, check.errors),
      };
    }
    const backend = this.backends.backend(record.namespace);
    const state = this.backends.state(record.namespace);
    if (!backend || state?.status !== "ready") return { kind: "backend_unavailable", record, state };
    const timeoutMs = request.timeoutMs ?? this.backends.callTimeoutMs(record.namespace) ?? this.options.defaultTimeoutMs;
    const started = performance.now();
    try {
      const result = await backend.callTool(record.name, request.args, { timeoutMs, signal: request.signal });
      const durationMs = Math.round(performance.now() - started);
      return { kind: "ok", record, result, durationMs, unchecked: check.ok === "unchecked" ? check.reason : undefined };
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (error instanceof BackendError) return { kind: "call_failed", record, code: error.code, message: error.message, durationMs };
      throw error;
    }
  }

  /** Repairs until the example validates, a few rounds at most (a fix can reveal a nested error). */
  private repair(record: ToolRecord, args: Record<string, unknown>, errors: Parameters<typeof correctArgs>[2]): Record<string, unknown> {
    let fixed = correctArgs(record.inputSchema, args, errors);
    for (let round = 0; round < 3; round++) {
      const again = this.validator.validate(record.inputSchema, fixed);
      if (again.ok !== false) break;
      fixed = correctArgs(record.inputSchema, fixed, again.errors);
    }
    return fixed;
  }
}
