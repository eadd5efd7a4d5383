/**
 * One envelope for every reply (docs/responses.md): guidance (`hint`,
 * `warning`, `must_follow`, `next`) and where a result is kept (`handle`
 * with its `summary`, `media_handle`, `truncated`) sit at the top level of
 * every reply, never nested in a tool's result, whoever made it: the three
 * meta-tools, a backend's result, the code tools and metatools' own tools,
 * their successes and their errors. And a `warning` says only what is
 * incomplete or suspicious. Through a real client against the real server,
 * with real backends (test/fixtures/exec-server.mjs, media-server.mjs) and
 * the code tools over a real project.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENVELOPE_KEYS } from "../../src/disclosure/guidance.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";
import { writePolyglot } from "../helpers/polyglot.js";

const MEDIA = fileURLToPath(new URL("../fixtures/media-server.mjs", import.meta.url));
const TEXTS = ["hint", "warning", "must_follow"];
/** Values that are arguments or data, not a reply's own fields: a call's arguments, a schema, a file's JSON, a backend's own structured content. */
const PAYLOADS = new Set(["next", "arguments", "args", "input_schema", "output_schema", "examples", "value"]);

type Reply = Record<string, any>;
let session: Session;
let root: string;

beforeAll(async () => {
  root = writePolyglot().root;
  for (let i = 0; i < 260; i++) writeFileSync(join(root, `generated/file${String(i).padStart(3, "0")}.txt`), `file ${i}\n`);
  mkdirSync(join(root, "data"), { recursive: true });
  writeFileSync(join(root, "data/big.json"), JSON.stringify({ rows: Array.from({ length: 400 }, (_, i) => ({ id: i, label: `row ${i}`.padEnd(40, ".") })) }));
  session = await openSession({
    mcpServers: { exec: servers.exec(join(tempDir(), "calls.log")), media: { command: process.execPath, args: [MEDIA] } },
    metatools: { code: { root, maxFileBytes: 100_000 } },
  });
});
afterAll(() => session?.close());

/** Where an envelope field sits below the top level of `reply`, as paths; none is allowed. */
function misplaced(reply: Reply): string[] {
  const found: string[] = [];
  const builtin = /^(code|metatools):/.test(String(reply.tool_id ?? ""));
  const visit = (value: unknown, path: string) => {
    if (Array.isArray(value)) return value.forEach((item, i) => visit(item, `${path}[${i}]`));
    if (!value || typeof value !== "object") return;
    for (const [key, child] of Object.entries(value)) {
      if ((ENVELOPE_KEYS as readonly string[]).includes(key)) found.push(`${path}.${key}`);
      if (!PAYLOADS.has(key)) visit(child, `${path}.${key}`);
    }
  };
  for (const [key, child] of Object.entries(reply)) {
    // A backend's structured content is its own data: a backend may name its fields as it likes.
    if (PAYLOADS.has(key) || (key === "structured" && !builtin)) continue;
    visit(child, key);
  }
  return found;
}

/** Every reply of the session, checked for the envelope as it arrives. */
const seen: [string, Reply][] = [];
async function call(label: string, tool: string, args: Record<string, unknown>): Promise<Reply> {
  const reply = await session.call(tool, args);
  seen.push([label, reply]);
  expect(misplaced(reply), `${label}: ${JSON.stringify(reply).slice(0, 600)}`).toEqual([]);
  expect(TEXTS.filter((key) => key in reply).length, `${label}: one register at most`).toBeLessThanOrEqual(1);
  if (reply.next) expect(["search_tools", "describe_tool", "run_tool"], label).toContain(reply.next.tool);
  // A run_tool reply's summary is a stored output's (describe_tool's is the tool's).
  if ("tool_id" in reply && reply.summary !== undefined) expect(reply.handle, `${label}: a summary beside no handle`).toMatch(/^@out_/);
  return reply;
}
const run = (label: string, tool_id: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  call(label, "run_tool", { tool_id, args, ...extra });

describe("the meta-tools' own replies", () => {
  it("search_tools: a page with more, nothing found, an unknown namespace, relaxed matching, bad arguments", async () => {
    expect((await call("search overflow", "search_tools", { query: "read", limit: 1 })).next).toBeDefined();
    await call("search browse", "search_tools", { query: "", limit: 2, offset: 3 });
    expect((await call("search empty", "search_tools", { query: "zzqxv" })).hint).toBeDefined();
    expect((await call("search unknown namespace", "search_tools", { query: "read", namespace: "exe" })).warning).toBeDefined();
    await call("search relaxed", "search_tools", { query: "looku" });
    expect((await call("search bad args", "search_tools", { query: "read", limit: 0 })).ok).toBe(false);
  });

  it("describe_tool: each detail level, several ids, an unknown id, too many, none", async () => {
    for (const detail_level of ["summary", "schema", "full"])
      await call(`describe ${detail_level}`, "describe_tool", { tool_id: "metatools:read_output", detail_level });
    await call("describe several", "describe_tool", { tool_ids: ["code:grep", "exec:lookup", "exec:nope"] });
    expect((await call("describe unknown", "describe_tool", { tool_id: "exec:lookp" })).next).toBeDefined();
    expect((await call("describe too many", "describe_tool", { tool_id: "a:0", tool_ids: ["a:1", "a:2", "a:3", "a:4", "a:5"] })).error.code).toBe(
      "too_many_ids",
    );
    expect((await call("describe none", "describe_tool", {})).error.code).toBe("missing_tool_id");
  });

  it("run_tool's own refusals: unknown tool, invalid arguments, a timeout", async () => {
    expect((await run("run unknown", "exec:lookp", { key: "a" })).error.code).toBe("unknown_tool");
    expect((await run("run invalid", "exec:lookup", { kee: "a" })).error.code).toBe("invalid_args");
    expect((await run("run timeout", "exec:slow", { steps: 20, step_ms: 50 }, { timeout_ms: 100 })).error.code).toBe("timeout");
  });
});

describe("a backend's results", () => {
  it("a result, a tool error, structured content off its schema", async () => {
    await run("backend ok", "exec:lookup", { key: "a" });
    expect((await run("backend tool error", "exec:put", { key: "a", value: "fail" })).error.code).toBe("tool_error");
    expect((await run("backend off schema", "exec:typed", { mode: "bad" })).warning).toMatch(/output schema/);
  });

  it("a result over the budget: handle and summary at the top, as for the code tools", async () => {
    const reply = await run("backend spilled", "exec:big_json", { count: 2000 });
    expect(reply).toMatchObject({ ok: true, handle: expect.stringMatching(/^@out_/), summary: { kind: "json" } });
    expect(reply.next.arguments.args.handle).toBe(reply.handle);
  });

  it("an image sent with the reply is no warning: the media list says what came", async () => {
    const reply = await run("image attached", "media:image", { bytes: 64 });
    expect(reply.media).toEqual([{ type: "image", mimeType: "image/png", bytes: 64 }]);
    expect(reply.warning).toBeUndefined();
    expect(JSON.stringify(reply)).not.toMatch(/is attached/);
    await run("audio attached", "media:sound");
    await run("embedded resources", "media:embedded");
  });

  it("an image over the media budget, links to read: a hint with its call", async () => {
    const kept = await run("image kept", "media:image", { bytes: 3_000_000 });
    expect(kept).toMatchObject({ media_handle: expect.stringMatching(/^@out_/), hint: expect.stringContaining(kept.media_handle) });
    expect(kept.warning).toBeUndefined();
    const links = await run("links", "media:links");
    expect(links.hint).toMatch(/resource link/);
    expect(links.warning).toBeUndefined();
    await call("read resource", links.next.tool, links.next.arguments);
    await run("read kept media", "metatools:read_output", { handle: kept.media_handle });
  });
});

describe("the code tools and metatools' own tools", () => {
  it("tree, symbols, references, grep: results, overflows and refusals", async () => {
    await run("tree", "code:tree", { path: "src" });
    expect((await run("tree overflow", "code:tree", { path: "generated" })).next).toBeDefined();
    await run("symbols overview", "code:symbols", { path: "src/app.ts" });
    expect((await run("symbols overflow", "code:symbols", { pattern: "widget" })).next).toBeDefined();
    await run("symbols miss", "code:symbols", { name_path: "Nope/nothing" });
    await run("references", "code:references", { symbol: "handleRequest" });
    await run("grep", "code:grep", { pattern: "handleRequest" });
    expect((await run("grep overflow", "code:grep", { pattern: "needle" })).next).toBeDefined();
    expect((await run("grep invalid", "code:grep", { pattern: "a(" })).ok).toBe(false);
  });

  it("read_file: a range, a JSON part, a file over the cap, a refusal", async () => {
    await run("read range", "code:read_file", { path: "src/app.ts", start_line: 1, end_line: 3 });
    await run("read json", "code:read_file", { path: "data/config.json", json_path: "$.scripts" });
    expect((await run("read over cap", "code:read_file", { path: "generated/huge.txt" })).hint).toMatch(/cap/);
    expect((await run("read missing", "code:read_file", { path: "src/nope.ts" })).ok).toBe(false);
    expect((await run("read secret", "code:read_file", { path: ".env" })).ok).toBe(false);
  });

  it("read_file over the budget: handle and summary at the top, as for a backend's result", async () => {
    for (const [label, args] of [
      ["read spilled", { path: "generated/long.ts" }],
      ["read json spilled", { path: "data/big.json", json_path: "$.rows" }],
    ] as const) {
      const reply = await run(label, "code:read_file", args);
      expect(reply, label).toMatchObject({ ok: true, handle: expect.stringMatching(/^@out_/), summary: expect.any(Object) });
      expect(reply.next.arguments.args.handle, label).toBe(reply.handle);
      expect(reply.structured.handle, label).toBeUndefined();
    }
  });

  it("read_output: a slice, the rest, a JSON path, grep, an unknown handle", async () => {
    const spilled = await run("spill for read_output", "code:read_file", { path: "generated/long.ts" });
    const slice = await call("read_output slice", spilled.next.tool, spilled.next.arguments);
    expect(slice).toMatchObject({ ok: true, handle: spilled.handle, structured: { start_line: 1 } });
    await call("read_output rest", slice.next.tool, slice.next.arguments);
    const json = await run("json for read_output", "exec:big_json", { count: 2000 });
    await run("read_output json_path", "metatools:read_output", { handle: json.handle, json_path: "$.records[0:2]" });
    await run("read_output json_path too big", "metatools:read_output", { handle: json.handle, json_path: "$.records" });
    await run("read_output grep", "metatools:read_output", { handle: spilled.handle, grep: "value1[0-9] " });
    expect((await run("read_output unknown", "metatools:read_output", { handle: "@out_AAAAAAAAAAAAAAAAAAAAAAAA" })).error.code).toBe("unknown_handle");
  });

  it("every reply above was checked, of every meta-tool and every built-in tool", () => {
    const tools = new Set(seen.map(([, reply]) => String(reply.tool_id ?? "")).filter(Boolean));
    for (const id of ["code:tree", "code:symbols", "code:references", "code:grep", "code:read_file", "metatools:read_output", "metatools:read_resource"]) {
      expect(tools, id).toContain(id);
    }
    expect(seen.length).toBeGreaterThan(40);
  });
});
