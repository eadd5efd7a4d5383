/**
 * The audit record is also an OpenTelemetry event, `metatools.audit`, on the
 * call's `tool.exec` span, with the same fields as the line in the file:
 * captured with the SDK's in-memory exporter over real calls to the
 * executor fixture (the in-process harness). Other meta-tools leave none.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuditRecord } from "../../src/audit/record.js";
import { Telemetry } from "../../src/observe/telemetry.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

const spans = new InMemorySpanExporter();
const file = join(tempDir(), "audit", "trail.jsonl");
let session: Session;

beforeAll(async () => {
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }).getTracer("test");
  session = await openSession(
    { mcpServers: { kv: servers.exec(join(tempDir(), "calls.log")) }, metatools: { code: { enabled: false }, audit: { file } } },
    { telemetry: new Telemetry({ tracer }), builtinCatalog: false },
  );
});
afterAll(() => session?.close());

const auditEvents = (name: string) =>
  spans
    .getFinishedSpans()
    .filter((s) => s.name === name)
    .flatMap((s) => s.events.filter((e) => e.name === "metatools.audit"));

describe("the metatools.audit span event", () => {
  it("carries the record's fields on the run's span, as the file has them", async () => {
    await session.call("run_tool", { tool_id: "kv:lookup", args: { key: "otel-audit" } });
    await session.call("run_tool", { tool_id: "kv:missing_tool_71c2", args: { key: "x" } });
    await vi.waitFor(() => expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(2), { timeout: 5000, interval: 50 });
    const [ok, unknown] = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as AuditRecord);

    const [event] = auditEvents("tool.exec kv:lookup");
    expect(event?.attributes).toEqual({
      "metatools.audit.time": ok!.time,
      "metatools.audit.principal": "local",
      "metatools.audit.profile": "default",
      "metatools.audit.tool": "kv:lookup",
      "metatools.audit.args": ok!.args,
      "metatools.audit.approval": "not_needed",
      "metatools.audit.status": "ok",
      "metatools.audit.duration_ms": ok!.duration_ms,
    });
    expect(auditEvents("tool.exec (unknown)")[0]?.attributes).toMatchObject({
      "metatools.audit.tool": "(unknown)",
      "metatools.audit.status": "unknown_tool",
      "metatools.audit.args": unknown!.args,
    });
  });

  it("is left by run_tool alone", async () => {
    await session.call("search_tools", { query: "look up a key" });
    await session.call("describe_tool", { tool_id: "kv:lookup" });
    expect(auditEvents("metatools.search")).toEqual([]);
    expect(auditEvents("metatools.describe")).toEqual([]);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(2);
  });
});
