/**
 * The meta-tools over stand-in services (src/meta/services.ts): no backend
 * is started, no index built. What the dispatcher does around a handler
 * (validation, corrected calls, the budget) and what describe_tool and
 * run_tool answer from the registry and the executor alone.
 */
import { describe, expect, it } from "vitest";
import { createMetaDispatcher } from "../../../src/meta/index.js";
import type { MetaServices } from "../../../src/meta/services.js";
import type { ToolRecord } from "../../../src/model/tool.js";
import type { RunOutcome } from "../../../src/exec/executor.js";
import type { MetaToolName } from "../../../src/meta/reply.js";
import { Bm25Ranker } from "../../../src/search/bm25.js";
import { SpanNotes } from "../../../src/observe/telemetry.js";
import { toolRecord } from "../../helpers/records.js";

const record: ToolRecord = toolRecord("files", "read", {
  summary: "Read a file.",
  description: "Read a file of the project.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true },
  runnable: false,
});

function services(runs: RunOutcome[] = []): MetaServices {
  const records = new Map([[record.id, record]]);
  return {
    config: { search: { defaultLimit: 5, maxLimit: 50, mode: "bm25" }, budgets: { inlineBytes: 4000, mediaBytes: 1 << 20 } },
    registry: {
      get: (id) => records.get(id),
      namespaces: () => [{ namespace: "files", count: 1 }],
      namespaceRecords: (ns) => [...records.values()].filter((r) => r.namespace === ns),
      quarantineOf: () => undefined,
    },
    search: { search: () => Promise.reject(new Error("not in this test")), bm25: new Bm25Ranker(), nearTerms: () => [] },
    executor: { run: async () => runs.shift() ?? { kind: "unknown_tool", id: "?" }, accepts: () => false },
    backends: { state: () => undefined, states: () => [], whenReady: async () => {}, callTimeoutMs: () => undefined },
    outputs: {
      put: async () => ({ handle: "@out_unused000", room: 1 << 20, ownerBytes: 2 << 20 }),
      get: async () => ({ kind: "missing" }),
      ttlMs: 60_000,
      maxBytes: 1 << 20,
    },
    resources: { links: undefined as never },
    telemetry: { measure: (_op, _name, attributes, work) => work(new SpanNotes(attributes)) },
    redact: (text) => text.replaceAll("hunter2", "[redacted]"),
  };
}

describe("the meta-tools without backends", () => {
  it.each<[MetaToolName, Record<string, unknown>, (body: Record<string, unknown>) => void]>([
    [
      "describe_tool",
      { tool_id: "files:read" },
      (b: Record<string, unknown>) => expect(b).toMatchObject({ id: "files:read", input_schema: record.inputSchema }),
    ],
    ["describe_tool", { tool_id: "files:red" }, (b: Record<string, unknown>) => expect(b).toMatchObject({ ok: false, error: { code: "unknown_tool" } })],
    [
      "describe_tool",
      {},
      (b: Record<string, unknown>) => expect(b).toMatchObject({ ok: false, error: { code: "missing_tool_id" }, next: { tool: "search_tools" } }),
    ],
    ["run_tool", { tool_id: 7 }, (b: Record<string, unknown>) => expect(b).toMatchObject({ ok: false, error: { code: "invalid_args" } })],
    [
      "search_tools",
      { query: "x", limit: "3" },
      (b: Record<string, unknown>) => expect(b).toMatchObject({ ok: false, next: { arguments: { query: "x", limit: 3 } } }),
    ],
  ])("%s %j", async (tool, args, check) => {
    check(await createMetaDispatcher(services())(tool, args));
  });

  it("run_tool answers a catalog-only tool with the call for its docs", async () => {
    const body = await createMetaDispatcher(services([{ kind: "not_runnable", record }]))("run_tool", { tool_id: "files:read", args: { path: "a" } });
    expect(body).toMatchObject({
      ok: false,
      error: { code: "not_runnable" },
      next: { tool: "describe_tool", arguments: { tool_id: "files:read", detail_level: "full" } },
    });
  });

  it("redacts what a handler returns with the services' redactor", async () => {
    const body = await createMetaDispatcher(services())("describe_tool", { tool_id: "hunter2:x" });
    expect(JSON.stringify(body)).not.toContain("hunter2");
    expect(JSON.stringify(body)).toContain("[redacted]");
  });
});
