/**
 * OpenTelemetry instrumentation through the API package only: spans
 * `metatools.search`, `metatools.describe` and `tool.exec <id>`, a request
 * counter, a tool-call counter, an output-handle counter and duration
 * histograms. With no SDK registered every call is a no-op; `sdk.ts` starts
 * one from the standard OTEL_* environment variables.
 */
import { metrics, SpanStatusCode, trace, type Attributes, type Counter, type Histogram, type Meter, type Span, type Tracer } from "@opentelemetry/api";
import { packageVersion } from "../util/version.js";
import { errorMessage } from "../util/errors.js";

/** Attribute names, in one place so spans, metrics, tests and docs agree. */
export const ATTR = {
  operation: "metatools.operation",
  toolId: "metatools.tool.id",
  /** The id an agent asked for when it names no tool (span only). */
  requested: "metatools.tool.requested",
  namespace: "metatools.tool.namespace",
  /** OpenTelemetry's generative-AI convention for the tool name, for dashboards built on it. */
  genAiTool: "gen_ai.tool.name",
  cache: "metatools.cache",
  outcome: "metatools.outcome",
  bytes: "metatools.response.bytes",
  handle: "metatools.output.handle_created",
  hits: "metatools.search.hits",
  mode: "metatools.search.mode",
  /** The run of the program (metatools:run_program) a call was made from. */
  program: "metatools.program.run",
} as const;

export type Operation = "search" | "describe" | "run";

export interface Instruments {
  tracer: Tracer;
  meter: Meter;
}

export class Telemetry {
  private readonly tracer: Tracer;
  private readonly requests: Counter;
  private readonly requestDuration: Histogram;
  private readonly toolCalls: Counter;
  private readonly toolDuration: Histogram;
  private readonly handles: Counter;

  /** Defaults to the global providers: no-ops unless an SDK was registered. */
  constructor(instruments: Partial<Instruments> = {}) {
    this.tracer = instruments.tracer ?? trace.getTracer("metatools", packageVersion());
    const meter = instruments.meter ?? metrics.getMeter("metatools", packageVersion());
    this.requests = meter.createCounter("metatools.requests", { description: "Meta-tool calls, by operation and outcome." });
    this.requestDuration = meter.createHistogram("metatools.request.duration", { description: "Meta-tool call duration.", unit: "ms" });
    this.toolCalls = meter.createCounter("metatools.tool.calls", { description: "run_tool executions, by tool, outcome and cache status." });
    this.toolDuration = meter.createHistogram("metatools.tool.duration", { description: "run_tool duration, cache hits included.", unit: "ms" });
    this.handles = meter.createCounter("metatools.output.handles", { description: "Results too large to send, stored under an output handle." });
  }

  /**
   * Runs `work` inside a span; `work` adds its own attributes to the span.
   * Ends the span with the outcome, and records the metrics from the span's
   * final attributes. A throw marks the span as an error and is rethrown.
   */
  async measure<T>(operation: Operation, name: string, attributes: Attributes, work: (span: SpanNotes) => Promise<T>): Promise<T> {
    const notes = new SpanNotes({ [ATTR.operation]: operation, ...attributes });
    return this.tracer.startActiveSpan(name, { attributes: notes.attributes }, async (span: Span) => {
      const started = performance.now();
      notes.bind(span);
      try {
        const value = await work(notes);
        if (notes.attributes[ATTR.outcome] === undefined) notes.set({ [ATTR.outcome]: "ok" });
        return value;
      } catch (error) {
        notes.set({ [ATTR.outcome]: "fault" });
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorMessage(error) });
        throw error;
      } finally {
        span.end();
        this.record(operation, notes.attributes, performance.now() - started);
      }
    });
  }

  private record(operation: Operation, a: Attributes, ms: number): void {
    const base = { [ATTR.operation]: operation, [ATTR.outcome]: a[ATTR.outcome] };
    this.requests.add(1, base);
    this.requestDuration.record(ms, base);
    if (operation !== "run") return;
    const tool = { [ATTR.toolId]: a[ATTR.toolId], [ATTR.namespace]: a[ATTR.namespace], [ATTR.outcome]: a[ATTR.outcome], [ATTR.cache]: a[ATTR.cache] ?? "off" };
    this.toolCalls.add(1, tool);
    this.toolDuration.record(ms, tool);
    if (a[ATTR.handle] === true) this.handles.add(1, { [ATTR.toolId]: a[ATTR.toolId], [ATTR.namespace]: a[ATTR.namespace] });
  }
}

/** The attributes of the span in progress: set on the span at once, and kept for the metrics. */
export class SpanNotes {
  private span: Span | undefined;

  constructor(readonly attributes: Attributes) {}

  bind(span: Span): void {
    this.span = span;
  }

  set(attributes: Attributes): void {
    Object.assign(this.attributes, attributes);
    this.span?.setAttributes(attributes);
  }

  /** Adds an event to the span (the audit record of a run, `metatools.audit`); not kept for the metrics. */
  event(name: string, attributes: Attributes): void {
    this.span?.addEvent(name, attributes);
  }
}
