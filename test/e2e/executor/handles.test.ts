/**
 * Output handles for results far over the budget, from real backends: a
 * 1 MB JSON file read through the public filesystem server, and a 1 MB
 * structured result from the executor fixture.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, tempDir, type Session } from "../../helpers/harness.js";
import { eventually } from "../../helpers/eventually.js";

let session: Session;
let dir: string;
const RECORDS = 12_000;

beforeAll(async () => {
  dir = tempDir();
  const records = Array.from({ length: RECORDS }, (_, i) => ({
    id: i,
    sku: `SKU-${String(i).padStart(6, "0")}`,
    title: `Item number ${i}`,
    price: i % 97,
    tags: ["stock", i % 2 ? "odd" : "even"],
  }));
  // One line of minified JSON, as APIs return it: just over 1 MiB.
  writeFileSync(join(dir, "inventory.json"), JSON.stringify({ source: "warehouse", records }));
  expect(statSync(join(dir, "inventory.json")).size).toBeGreaterThan(1 << 20);
  session = await openSession({ mcpServers: { files: servers.filesystem(dir), kv: servers.exec(join(dir, "calls.log")) } });
});
afterAll(() => session?.close());

describe("a 1 MB result", () => {
  it("comes back as a handle, a summary and a next call, within 10,000 bytes; next read literally gives the slice", async () => {
    const { text } = await session.raw("run_tool", { tool_id: "files:read_text_file", args: { path: join(dir, "inventory.json") } });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ ok: true, tool_id: "files:read_text_file", handle: expect.stringMatching(/^@out_/) });
    expect(body.summary.kind).toBe("json");
    expect(body.summary.bytes).toBeGreaterThan(1_000_000);
    expect(body.summary.shape).toMatchObject({ source: "warehouse", records: { array: RECORDS, first: { sku: "SKU-000000" } } });
    expect(Buffer.byteLength(JSON.stringify(body.summary))).toBeLessThanOrEqual(2000);
    expect(body.hint).toContain("json_path");

    // The minified line was stored pretty-printed, so the literal next call reads whole lines.
    const { text: sliceText } = await session.raw(body.next.tool, body.next.arguments);
    expect(Buffer.byteLength(sliceText)).toBeLessThanOrEqual(10_000);
    const slice = JSON.parse(sliceText);
    expect(slice.ok).toBe(true);
    expect(slice.structured.content.split("\n")[0]).toBe("{");
    expect(slice.structured.content).toContain('"sku": "SKU-000000"');
    expect(slice.next.arguments.args.start_line).toBe(slice.structured.end_line + 1);
    expect(slice.structured.next).toBeUndefined();
  });

  it("reads by JSON path and by grep", async () => {
    const body = await session.call("run_tool", { tool_id: "files:read_text_file", args: { path: join(dir, "inventory.json") } });
    const one = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, json_path: "$.records[4242]" } });
    expect(one.structured.value).toMatchObject({ id: 4242, sku: "SKU-004242" });
    const names = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, json_path: "$.records[0:3].sku" } });
    expect(names.structured.value).toEqual(["SKU-000000", "SKU-000001", "SKU-000002"]);
    const found = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, grep: "SKU-00871[0-2]" } });
    expect(found.structured.total).toBe(3);
    expect(found.structured.matches[0]).toMatch(/^\d+: +"sku": "SKU-008710",$/);
  });

  it("a structured result is stored as JSON too, its summary giving the shape", async () => {
    const body = await session.call("run_tool", { tool_id: "kv:big_json", args: { count: 10_000 } });
    expect(body.summary).toMatchObject({ kind: "json", shape: { kind: "records", count: 10_000, records: { array: 10_000 } } });
    expect(body.summary.bytes).toBeGreaterThan(1_000_000);
    const needles = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, grep: "needle" } });
    expect(needles.structured.total).toBe(10);
  });

  it("a result on one long line is read in pieces of characters, each within the budget, by following next", async () => {
    const body = await session.call("run_tool", { tool_id: "kv:long_line", args: { chars: 45_000 } });
    expect(body.summary).toMatchObject({ kind: "text", lines: 1, bytes: 45_000 });
    let call = body.next;
    let text = "";
    for (let step = 0; step < 20 && call; step++) {
      const { text: raw } = await session.raw(call.tool, call.arguments);
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(10_000);
      const reply = JSON.parse(raw);
      const piece = reply.structured;
      expect(piece.start_column).toBe(text.length + 1);
      text += piece.content;
      call = reply.next;
    }
    expect(text.length).toBe(45_000);
    expect(text.split("|").length).toBe(5);
  });

  it("an unknown handle gets guidance, not a fault", async () => {
    const { text, isError } = await session.raw("run_tool", { tool_id: "metatools:read_output", args: { handle: "@out_neverissued0000" } });
    expect(isError).toBe(false);
    expect(JSON.parse(text)).toMatchObject({
      ok: false,
      error: { code: "unknown_handle", message: expect.stringContaining("30 minutes") },
      hint: expect.stringContaining("again"),
    });
  });
});

describe("handle limits", () => {
  it("an expired handle is unknown; an output over the size bound keeps its first lines and says so", async () => {
    const ttlMs = 1000;
    const small = await openSession(
      { mcpServers: { kv: servers.exec(join(tempDir(), "calls.log")) }, metatools: { outputs: { ttlMs, maxBytes: 200_000 } } },
      { builtinCatalog: false },
    );
    try {
      const stored = Date.now();
      const body = await small.call("run_tool", { tool_id: "kv:big_json", args: { count: 5000 } });
      expect(body.hint).toMatch(/Only lines 1-\d+ of \d+ are kept/);
      const last = Number(/Only lines 1-(\d+)/.exec(body.hint)![1]);
      const tail = await small.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, start_line: last } });
      expect(tail.structured).toMatchObject({ start_line: last, end_line: last, total_lines: last });
      const line = await small.call("run_tool", { tool_id: "kv:long_line", args: { chars: 300_000 } });
      expect(line.hint).toContain("Only the first 200000 bytes of its only line are kept");
      const piece = await small.call("run_tool", { tool_id: "metatools:read_output", args: { handle: line.handle, start_line: 1, start_column: 199_990 } });
      expect(piece.structured).toMatchObject({ line_chars: 200_000, end_column: 200_000 });
      // A handle's TTL is fixed when it is stored (reading it does not extend it), so asking until it is gone ends.
      const gone = await eventually(
        () => small.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle } }),
        (reply) => reply.ok !== true,
      );
      expect(gone).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
      expect(Date.now() - stored).toBeGreaterThanOrEqual(ttlMs);
    } finally {
      await small.close();
    }
  });
});
