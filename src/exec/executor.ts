/**
 * run_tool's domain side: resolve the id, validate the arguments against
 * the tool's input schema before any backend sees them, answer from the
 * cache when the tool allows it, dispatch with a timeout, cancellation and
 * progress, and check the output against the tool's output schema. Each
 * outcome is a tagged value; the meta-tool turns it into a response.
 */
import type { BackendManager, BackendState } from "../backends/manager.js";
import { BackendError, withoutTrace } from "../backends/errors.js";
import type { ProgramHost } from "../model/program.js";
import type { ClientPeer, ProgressUpdate, ToolCallResult } from "../backends/types.js";
import type { BackendErrorCode } from "../model/error-codes.js";
import type { OutputValidation } from "../config/resolved.js";
import type { ToolRecord } from "../model/tool.js";
import type { ToolRegistry } from "../registry/registry.js";
import type { CacheMode, CacheStatus, ResultCache } from "./cache.js";
import { correctArgs, explainErrors, type FieldProblem, type Repair } from "./explain.js";
import { OutputChecker } from "./output-check.js";
import { SchemaValidator } from "./validator.js";
import type { Logger } from "../util/log.js";

export interface RunOk {
  kind: "ok";
  record: ToolRecord;
  result: ToolCallResult;
  durationMs: number;
  cache: CacheStatus;
  /** On a cache hit: how old the result is. */
  cacheAgeMs?: number;
  /** Why the input schema could not be used, when it could not. */
  unchecked?: string;
  /** Where structuredContent departs from the output schema (warning mode). */
  outputProblems?: FieldProblem[];
}

export type RunOutcome =
  | RunOk
  | { kind: "invalid_output"; record: ToolRecord; problems: FieldProblem[]; durationMs: number }
  | { kind: "unknown_tool"; id: string }
  | { kind: "not_runnable"; record: ToolRecord }
  /** `corrected` validates unless `unknown` names fields only the caller can fill. */
  | { kind: "invalid_args"; record: ToolRecord; problems: FieldProblem[]; corrected: Record<string, unknown>; unknown: string[] }
  | { kind: "backend_unavailable"; record: ToolRecord; state: BackendState | undefined }
  | { kind: "call_failed"; record: ToolRecord; code: BackendErrorCode; message: string; durationMs: number; narrowed?: Record<string, unknown> };

export interface RunRequest {
  toolId: string;
  args: Record<string, unknown>;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Default `use`: serve from cache when allowed. `refresh` calls and re-caches; `bypass` neither reads nor writes. */
  cache?: CacheMode;
  /** Receives the backend's progress notifications for this call. */
  onProgress?: (update: ProgressUpdate) => void;
  /** Who the call is made for: whose cached results it may be served, and whose output handles built-in tools may read. */
  principal: string;
  /** The client the call came from: a backend's elicitation and sampling requests go to it. */
  peer?: ClientPeer;
  /** For a built-in tool that runs programs: where their calls go (the caller's own path, src/meta/program-host.ts). */
  host?: ProgramHost;
}

export interface ExecutorOptions {
  /** Used when neither the call nor the backend's config sets one. */
  defaultTimeoutMs: number;
  /** Refuse arguments a tool's schema does not declare, unless the schema allows extras. */
  rejectUnknownArgs: boolean;
  outputValidation: OutputValidation;
  /** Where the stack traces taken out of backends' errors go (at debug level): an agent is shown the message only. */
  logger?: Logger;
}

export class Executor {
  private readonly validator: SchemaValidator;
  private readonly outputs: OutputChecker;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly backends: BackendManager,
    private readonly cache: ResultCache,
    private readonly options: ExecutorOptions,
  ) {
    this.validator = new SchemaValidator({ closeTopLevel: options.rejectUnknownArgs });
    this.outputs = new OutputChecker(options.outputValidation);
  }

  /** Whether `args` would pass `toolId`'s input check (no call is made): a suggested call is offered ready only when it would. */
  accepts(toolId: string, args: Record<string, unknown>): boolean {
    const record = this.registry.get(toolId);
    return !!record && record.runnable && this.validator.validate(record.inputSchema, args).ok !== false;
  }

  async run(request: RunRequest): Promise<RunOutcome> {
    const record = this.registry.get(request.toolId);
    if (!record) return { kind: "unknown_tool", id: request.toolId };
    if (!record.runnable) return { kind: "not_runnable", record };
    const check = this.validator.validate(record.inputSchema, request.args);
    if (check.ok === false) {
      const repair = this.repair(record, request.args, check.errors);
      return {
        kind: "invalid_args",
        record,
        problems: explainErrors(check.errors, request.args, record.inputSchema),
        corrected: repair.args,
        unknown: repair.unknown,
      };
    }
    const unchecked = check.ok === "unchecked" ? check.reason : undefined;
    const policy = this.cache.policy(record);
    const mode = request.cache ?? "use";
    if (!policy.cacheable || mode === "bypass") {
      const outcome = await this.dispatch(record, request, policy.cacheable ? "bypass" : "off", unchecked);
      await this.retireIfWrite(outcome);
      return outcome;
    }
    const started = performance.now();
    const lookup = await this.cache.lookup(record, request.args, mode === "use", request.principal);
    if (lookup.hit) {
      const { result, ageMs } = lookup.hit;
      return this.finish({ kind: "ok", record, result, durationMs: Math.round(performance.now() - started), cache: "hit", cacheAgeMs: ageMs, unchecked });
    }
    const outcome = await this.dispatch(record, request, mode === "use" ? "miss" : "refresh", unchecked);
    // An idempotent tool that writes retires what was cached before it, and its own result then belongs to the new generation.
    const gen = await this.retireIfWrite(outcome);
    if (outcome.kind === "ok") await this.cache.save({ ...lookup, gen: gen ?? lookup.gen }, outcome.result, policy.ttlMs, gen);
    return outcome;
  }

  /**
   * A call that reached a tool that may write retires its namespace's cached
   * results, whatever it answered: a write that timed out or reported an
   * error may still have changed something. Returns the new generation.
   */
  private async retireIfWrite(outcome: RunOutcome): Promise<string | undefined> {
    const reached = (outcome.kind === "ok" && outcome.cache !== "hit") || outcome.kind === "invalid_output" || outcome.kind === "call_failed";
    if (!reached || outcome.record.annotations.readOnlyHint === true) return undefined;
    return this.cache.invalidate(outcome.record.namespace);
  }

  /** Calls the backend with a timeout, cancellation and progress. */
  private async dispatch(record: ToolRecord, request: RunRequest, cache: CacheStatus, unchecked: string | undefined): Promise<RunOutcome> {
    const backend = this.backends.backend(record.namespace);
    // A tool known from the snapshot, its backend still starting: the call waits for it, up to its connect timeout.
    const starting = this.backends.state(record.namespace)?.status;
    if (starting === "connecting" || starting === "reconnecting") await this.backends.whenReady(record.namespace, request.signal);
    const state = this.backends.state(record.namespace);
    if (!backend || state?.status !== "ready") return { kind: "backend_unavailable", record, state };
    const timeoutMs = request.timeoutMs ?? this.backends.callTimeoutMs(record.namespace) ?? this.options.defaultTimeoutMs;
    const started = performance.now();
    let result: ToolCallResult;
    try {
      result = await backend.callTool(record.upstreamName ?? record.name, request.args, {
        timeoutMs,
        signal: request.signal,
        onProgress: request.onProgress,
        principal: request.principal,
        peer: request.peer,
        ...(request.host ? { host: request.host } : {}),
      });
    } catch (error) {
      const durationMs = Math.round(performance.now() - started);
      if (error instanceof BackendError)
        return { kind: "call_failed", record, code: error.code, message: this.shown(record, error.message), durationMs, narrowed: error.details.narrowed };
      throw error;
    }
    if (result.isError)
      result = { ...result, content: result.content?.map((block) => (block.type === "text" ? { ...block, text: this.shown(record, block.text) } : block)) };
    return this.finish({ kind: "ok", record, result, durationMs: Math.round(performance.now() - started), cache, unchecked });
  }

  /** A backend's error text as the agent sees it: no stack trace, no paths of installed packages; those go to the debug log. */
  private shown(record: ToolRecord, text: string): string {
    const { message, trace } = withoutTrace(text);
    if (trace !== undefined) this.options.logger?.debug(`${record.id}: the backend's error, as it came (the agent is shown the message only):\n${trace}`);
    return message;
  }

  /** Checks the output against the tool's output schema: a warning on the result, or in strict mode an error instead of it. */
  private finish(outcome: RunOk): RunOutcome {
    const problems = this.outputs.check(outcome.record, outcome.result);
    if (!problems.length) return outcome;
    if (this.outputs.mode === "strict") return { kind: "invalid_output", record: outcome.record, problems, durationMs: outcome.durationMs };
    return { ...outcome, outputProblems: problems };
  }

  /** Repairs until the example validates, a few rounds at most (a fix can reveal a nested error); what only the caller knows stays unknown. */
  private repair(record: ToolRecord, args: Record<string, unknown>, errors: Parameters<typeof correctArgs>[2]): Repair {
    let fixed = correctArgs(record.inputSchema, args, errors);
    for (let round = 0; round < 3 && !fixed.unknown.length; round++) {
      const again = this.validator.validate(record.inputSchema, fixed.args);
      if (again.ok !== false) break;
      const next = correctArgs(record.inputSchema, fixed.args, again.errors);
      fixed = { args: next.args, unknown: [...fixed.unknown, ...next.unknown] };
      // Still failing after the last round: not a call that can succeed.
      if (round === 2 && this.validator.validate(record.inputSchema, fixed.args).ok === false) fixed.unknown.push("args");
    }
    return fixed;
  }
}
