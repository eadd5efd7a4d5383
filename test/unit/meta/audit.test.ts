/**
 * The dispatcher's audit record for the ends a real server rarely shows:
 * a fault (the executor throws) is recorded as `fault` and still thrown,
 * arguments too deep to serialize are recorded (refused, with the digest of
 * a fixed marker), and a caller given no principal nor profile is the local
 * user with the default profile.
 * Stand-in services (no backend), a real audit log and file.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditFileSink } from "../../../src/audit/file-sink.js";
import { AuditLog } from "../../../src/audit/log.js";
import { UNDIGESTIBLE, type AuditRecord } from "../../../src/audit/record.js";
import type { RunOutcome } from "../../../src/exec/executor.js";
import { createMetaDispatcher } from "../../../src/meta/index.js";
import type { MetaServices } from "../../../src/meta/services.js";
import { standInServices } from "../../helpers/meta-services.js";
import { toolRecord } from "../../helpers/records.js";
import { tempDir } from "../../helpers/temp-dir.js";

const record = toolRecord("files", "read", {
  inputSchema: { type: "object", properties: { path: { type: "string" } } },
  annotations: { readOnlyHint: true },
});

function services(audit: AuditLog, run: () => Promise<RunOutcome>): MetaServices {
  return standInServices({ records: [record], run, audit });
}

async function trail(run: () => Promise<RunOutcome>, calls: (dispatch: ReturnType<typeof createMetaDispatcher>) => Promise<void>): Promise<AuditRecord[]> {
  const file = join(tempDir(), "audit.jsonl");
  const log = new AuditLog(new AuditFileSink(file, { maxBytes: 1 << 20, keep: 1 }));
  await calls(createMetaDispatcher(services(log, run)));
  await log.close();
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as AuditRecord);
}

describe("the audit record the dispatcher makes", () => {
  it("a fault: recorded as fault with the tool's id, and still thrown to the caller", async () => {
    const records = await trail(
      () => Promise.reject(new Error("the executor broke")),
      async (dispatch) => {
        await expect(dispatch("run_tool", { tool_id: "files:read", args: { path: "a" } }, { principal: "token:abc" })).rejects.toThrow("the executor broke");
      },
    );
    expect(records).toEqual([expect.objectContaining({ tool: "files:read", status: "fault", principal: "token:abc", profile: "default" })]);
  });

  it("arguments nested too deeply to serialize: refused, and recorded with the marker's digest", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const records = await trail(
      () => Promise.reject(new Error("never reached")),
      async (dispatch) => {
        const body = await dispatch("run_tool", { tool_id: "files:read", args: { path: deep } });
        expect(body).toMatchObject({ ok: false, error: { code: "invalid_args" } });
      },
    );
    expect(records).toEqual([expect.objectContaining({ tool: "files:read", status: "invalid_args" })]);
    expect(records[0]!.args).toBe(`sha256:${createHash("sha256").update(UNDIGESTIBLE).digest("hex")}`);
  });

  it("a call with no principal or profile is the local user's, default profile; describe leaves no record", async () => {
    const ok: RunOutcome = { kind: "ok", record, result: { content: [{ type: "text", text: "hi" }] }, durationMs: 1, cache: "off" } as RunOutcome;
    const records = await trail(
      async () => ok,
      async (dispatch) => {
        await dispatch("describe_tool", { tool_id: "files:read" });
        await dispatch("run_tool", { tool_id: "files:read", args: { path: "a" } });
      },
    );
    expect(records.map((r) => [r.tool, r.principal, r.profile, r.status])).toEqual([["files:read", "local", "default", "ok"]]);
  });
});
