/**
 * Spans and metrics, captured with the OpenTelemetry SDK's in-memory span
 * exporter and a metric reader collected on demand, over real calls.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { MeterProvider, MetricReader, type DataPoint, type Histogram } from "@opentelemetry/sdk-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTelemetrySdk, telemetryRequested } from "../../../src/observe/sdk.js";
import { Telemetry } from "../../../src/observe/telemetry.js";
import { runCli } from "../../helpers/cli.js";
import { openSession, servers, tempDir, type Session } from "../../helpers/harness.js";

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const reader = new TestReader();
let session: Session;

beforeAll(async () => {
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("test");
  const meter = new MeterProvider({ readers: [reader] }).getMeter("test");
  session = await openSession({ mcpServers: { kv: servers.exec(join(tempDir(), "calls.log")) } }, { telemetry: new Telemetry({ tracer, meter }) });
});
afterAll(() => session?.close());

const named = (name: string): ReadableSpan[] => spans.getFinishedSpans().filter((s) => s.name === name);

async function metric(name: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  return (found?.dataPoints ?? []) as DataPoint<unknown>[];
}

describe("OpenTelemetry", () => {
  it("makes a metatools.search span with the hit count, and a metatools.describe span", async () => {
    await session.call("search_tools", { query: "look up a key" });
    const [search] = named("metatools.search");
    expect(search?.attributes).toMatchObject({ "metatools.operation": "search", "metatools.outcome": "ok", "metatools.search.mode": "hybrid" });
    expect(search?.attributes["metatools.search.hits"]).toBeGreaterThan(0);
    expect(search?.attributes["metatools.response.bytes"]).toBeGreaterThan(100);

    await session.call("describe_tool", { tool_id: "kv:lookup" });
    expect(named("metatools.describe")[0]?.attributes).toMatchObject({ "metatools.tool.id": "kv:lookup", "metatools.outcome": "ok" });
  });

  it("makes a tool.exec <id> span per run, with namespace, cache status, outcome, bytes and handle", async () => {
    await session.call("run_tool", { tool_id: "kv:lookup", args: { key: "otel" } });
    await session.call("run_tool", { tool_id: "kv:lookup", args: { key: "otel" } });
    await session.call("run_tool", { tool_id: "kv:big_json", args: { count: 1000 } });
    await session.call("run_tool", { tool_id: "kv:lookup", args: { key: "" } });
    await session.call("run_tool", { tool_id: "kv:no_such_tool_8f3a", args: {} });

    const runs = named("tool.exec kv:lookup");
    expect(runs.map((s) => s.attributes["metatools.cache"])).toEqual(["miss", "hit", undefined]);
    expect(runs[0]?.attributes).toMatchObject({
      "metatools.tool.id": "kv:lookup",
      "metatools.tool.namespace": "kv",
      "gen_ai.tool.name": "kv:lookup",
      "metatools.outcome": "ok",
      "metatools.output.handle_created": false,
    });
    expect(runs[2]?.attributes["metatools.outcome"]).toBe("invalid_args");
    const [big] = named("tool.exec kv:big_json");
    expect(big?.attributes).toMatchObject({ "metatools.output.handle_created": true, "metatools.cache": "miss" });
    expect(big?.attributes["metatools.response.bytes"]).toBeLessThanOrEqual(10_000);
    expect(big!.endTime[0] * 1e9 + big!.endTime[1]).toBeGreaterThan(big!.startTime[0] * 1e9 + big!.startTime[1]);
  });

  it("counts calls by tool, outcome and cache status, times them in a histogram, and counts handles", async () => {
    const calls = await metric("metatools.tool.calls");
    const lookups = calls.filter((p) => p.attributes["metatools.tool.id"] === "kv:lookup");
    const byCache = Object.fromEntries(lookups.map((p) => [`${p.attributes["metatools.outcome"]}/${p.attributes["metatools.cache"]}`, p.value]));
    expect(byCache).toEqual({ "ok/miss": 1, "ok/hit": 1, "invalid_args/off": 1 });

    const durations = await metric("metatools.tool.duration");
    const hit = durations.find((p) => p.attributes["metatools.tool.id"] === "kv:lookup" && p.attributes["metatools.cache"] === "hit");
    expect((hit?.value as Histogram).count).toBe(1);

    const unknown = calls.filter((p) => p.attributes["metatools.outcome"] === "unknown_tool");
    expect(unknown.map((p) => [p.attributes["metatools.tool.id"], p.value])).toEqual([["(unknown)", 1]]);
    expect(named("tool.exec (unknown)")[0]?.attributes).toMatchObject({
      "metatools.outcome": "unknown_tool",
      "metatools.tool.requested": "kv:no_such_tool_8f3a",
    });

    const handles = await metric("metatools.output.handles");
    expect(handles).toEqual([expect.objectContaining({ attributes: { "metatools.tool.id": "kv:big_json", "metatools.tool.namespace": "kv" }, value: 1 })]);

    const requests = await metric("metatools.requests");
    const operations = Object.fromEntries(
      requests.filter((p) => p.attributes["metatools.outcome"] === "ok").map((p) => [p.attributes["metatools.operation"], p.value]),
    );
    expect(operations).toEqual({ search: 1, describe: 1, run: 3 });
  });
});

describe("OTLP export from the standard OTEL_* variables", () => {
  it("starts no SDK without them, and never a console exporter when stdout carries MCP", async () => {
    expect(telemetryRequested({})).toBe(false);
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318", OTEL_SDK_DISABLED: "true" })).toBe(false);
    const env: NodeJS.ProcessEnv = { OTEL_TRACES_EXPORTER: "console" };
    const warnings: string[] = [];
    expect(await startTelemetrySdk(env, { stdoutIsProtocol: true, warn: (m) => warnings.push(m) })).toBeUndefined();
    expect(env.OTEL_TRACES_EXPORTER).toBe("none");
    expect(warnings[0]).toMatch(/OTEL_TRACES_EXPORTER=console ignored/);
  });

  it("sends the run's span and metrics to the collector named by OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const received: Record<string, string[]> = {};
    const collector = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => (body += d));
      req.on("end", () => {
        (received[req.url ?? ""] ??= []).push(body);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
    const port = (collector.address() as AddressInfo).port;
    const dir = tempDir();
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { kv: servers.exec(join(dir, "calls.log")) } }));
    try {
      const result = await runCli(["run", "kv:lookup", "--args", '{"key":"otlp"}', "--json"], {
        cwd: dir,
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "metatools-test" },
      });
      expect(result.code, result.stderr).toBe(0);
      const traces = (received["/v1/traces"] ?? []).join("\n");
      expect(traces).toContain("tool.exec kv:lookup");
      expect(traces).toContain("metatools-test");
      expect((received["/v1/metrics"] ?? []).join("\n")).toContain("metatools.tool.calls");
    } finally {
      collector.closeAllConnections();
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});
