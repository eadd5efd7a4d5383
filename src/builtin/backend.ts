/**
 * Built-in backends: tools that run inside metatools (code intelligence,
 * output handles) behind the same `Backend` interface as upstream servers, so
 * search, describe, validation and run treat them alike.
 *
 * A built-in tool is a small module of data (`defineTool`): its arguments
 * are one zod object, from which come both the JSON Schema the executor
 * validates against and the handler's argument type. The handler gets
 * arguments already validated and returns a JSON body; a
 * body with `ok: false` is an expected failure (`{ok, error: {code, message},
 * hint|warning, next?}`), reported as an MCP tool error so run_tool can lift
 * its guidance. Thrown errors are faults.
 */
import type { JsonSchema, ToolAnnotations, UpstreamTool } from "../model/tool.js";
import { argsJsonSchema, type ArgsOf, type ArgsSchema } from "../model/tool-args.js";
import { BackendError } from "../backends/errors.js";
import { raceAbort } from "../util/abort.js";
import type { Backend, BackendInfo, CallOptions, ToolCallResult } from "../backends/types.js";
import type { ProgramHost } from "../model/program.js";
import type { Envelope, Refusal } from "../disclosure/guidance.js";
import { errorMessage } from "../util/errors.js";

/** A built-in tool's data: what it found, with the envelope fields it sets for the reply (run_tool lifts them to the top, src/meta/envelope.ts). */
export type ToolData = { [key: string]: unknown; ok?: undefined } & Envelope;

/**
 * What a built-in tool answers: its data, or a refusal (`recoverable()`),
 * which run_tool gives as its own. Either is read as a JSON object (the
 * code tools keep their arguments in one).
 */
export type Body = ToolData | (Refusal & { [key: string]: unknown });

/** A reply given as MCP content as it is (images a handle kept), not as a JSON body. */
export class RawResult {
  constructor(readonly result: ToolCallResult) {}
}

export interface ToolContext {
  signal: AbortSignal;
  /** Who the call is made for: what a tool keeps (output handles) belongs to them. */
  principal: string;
  /** Where the calls of a program this tool runs go: the caller's own run_tool path (src/meta/program-host.ts). */
  host?: ProgramHost;
}

/** A built-in tool as written: its arguments declared once, as a zod object. */
export interface BuiltinToolSpec<S extends ArgsSchema> {
  name: string;
  title: string;
  /** What search indexes and describe_tool shows; catalog docs add notes and examples. */
  description: string;
  args: S;
  annotations: ToolAnnotations;
  handle(args: ArgsOf<S>, context: ToolContext): Promise<Body | string | RawResult>;
  /** The same call with less work (a narrower path), offered when a call runs out of time. */
  narrow?(args: ArgsOf<S>): Promise<ArgsOf<S> | undefined>;
}

/** A built-in tool as the backend lists and calls it. */
export interface BuiltinTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema & { type: "object" };
  annotations: ToolAnnotations;
  handle(args: Record<string, unknown>, context: ToolContext): Promise<Body | string | RawResult>;
  narrow?(args: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
}

export function defineTool<S extends ArgsSchema>({ args, handle, narrow, ...about }: BuiltinToolSpec<S>): BuiltinTool {
  // The executor validated the arguments against the JSON Schema made from `args` before any call reaches the handler.
  const validated = (value: Record<string, unknown>) => value as ArgsOf<S>;
  return {
    ...about,
    inputSchema: argsJsonSchema(args),
    handle: (value, context) => handle(validated(value), context),
    ...(narrow ? { narrow: (value: Record<string, unknown>) => narrow(validated(value)) } : {}),
  };
}

export class BuiltinBackend implements Backend {
  readonly kind = "builtin";
  readonly runnable = true;
  private readonly byName: Map<string, BuiltinTool>;

  constructor(
    readonly namespace: string,
    private readonly serverInfo: BackendInfo,
    tools: readonly BuiltinTool[],
    private readonly onClose: () => Promise<void> = async () => {},
  ) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  async connect(): Promise<void> {}

  info(): BackendInfo {
    return this.serverInfo;
  }

  onEvent(): void {}

  async listTools(): Promise<UpstreamTool[]> {
    return [...this.byName.values()].map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: { title: t.title, ...t.annotations },
      // In-process and reading live state (files, stored outputs): a cached answer would only be a stale one.
      cache: "never" as const,
    }));
  }

  async callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<ToolCallResult> {
    const tool = this.byName.get(name);
    if (!tool) throw new BackendError("upstream_error", `${this.namespace} has no tool "${name}"`);
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new BackendError("timeout", `${this.namespace}:${name} gave no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => controller.abort(new BackendError("cancelled", `${this.namespace}:${name} was cancelled`));
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      // The reply comes at the deadline even if the handler has not yet reached a point where it checks the signal;
      // it stops at its next check (every file, every thousand lines), so the work does not go on behind the reply.
      const body = await raceAbort(
        tool.handle(args, { signal: controller.signal, principal: options.principal, ...(options.host ? { host: options.host } : {}) }),
        controller.signal,
      );
      if (typeof body === "string") return { content: [{ type: "text", text: body }] };
      if (body instanceof RawResult) return body.result;
      return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body, ...(body.ok === false ? { isError: true } : {}) };
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason instanceof BackendError) {
        const reason = controller.signal.reason;
        const narrowed = reason.code === "timeout" ? await tool.narrow?.(args).catch(() => undefined) : undefined;
        throw narrowed ? new BackendError(reason.code, reason.message, { narrowed }) : reason;
      }
      if (error instanceof BackendError) throw error;
      // A bug in a built-in tool is that call's failure, never the server's.
      throw new BackendError("tool_failed", `${this.namespace}:${name} failed: ${errorMessage(error)}`);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
