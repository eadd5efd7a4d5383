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
import { standInServices } from "../../helpers/meta-services.js";
import { toolRecord } from "../../helpers/records.js";

const record: ToolRecord = toolRecord("files", "read", {
  summary: "Read a file.",
  description: "Read a file of the project.",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  annotations: { readOnlyHint: true },
  runnable: false,
});

function services(runs: RunOutcome[] = []): MetaServices {
  return standInServices({
    records: [record],
    run: async () => runs.shift() ?? { kind: "unknown_tool", id: "?" },
    redact: (text) => text.replaceAll("hunter2", "[redacted]"),
  });
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
