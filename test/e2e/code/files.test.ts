/**
 * code:read_file (ranges, JSON paths, handles for big reads, summaries of
 * oversized files), the confinement rules (escapes and secrets refused with
 * guidance), and the byte budget on a large real tree (node_modules).
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextCalls, openCodeSession, type CodeSession } from "../../helpers/code.js";
import { writePolyglot, type Polyglot } from "../../helpers/polyglot.js";

let session: CodeSession;
let project: Polyglot;

beforeAll(async () => {
  project = writePolyglot();
  session = await openCodeSession(project.root, { maxFileBytes: 100_000 });
});
afterAll(() => session?.close());

describe("code:read_file", () => {
  it("reads a line range", async () => {
    const reply = await session.code("read_file", { path: "src/app.ts", start_line: 6, end_line: 7 });
    expect(reply.structured).toEqual({
      path: "src/app.ts",
      start_line: 6,
      end_line: 7,
      total_lines: 21,
      content: "export class Server {\n  private port = 8080;",
    });
  });

  it("reads one part of a JSON file, and a miss lists the keys with a call that works", async () => {
    const reply = await session.code("read_file", { path: "data/config.json", json_path: "$.scripts" });
    expect(reply.structured.value).toEqual({ build: "tsc", test: "vitest" });
    expect((await session.code("read_file", { path: "data/config.json", json_path: "items[1:]" })).structured.value).toEqual([2, 3]);
    const miss = await session.code("read_file", { path: "data/config.json", json_path: "$.scripts.lint" });
    expect(miss).toMatchObject({ ok: false, error: { code: "json_path_miss" } });
    expect(miss.error.message).toMatch(/Available there: build, test/);
    expect((await session.follow(miss.next)).structured.value).toBe("tsc");
  });

  it("a read over the budget becomes a handle, a summary and a next call that reads it", async () => {
    const reply = await session.code("read_file", { path: "generated/long.ts" });
    // Where the read is kept, and what it holds, are at the top of the reply, as for any result over the budget.
    const { handle, summary } = reply;
    const { total_lines } = reply.structured;
    const next = reply.next;
    expect(total_lines).toBe(900);
    expect(handle).toMatch(/^@out_/);
    expect(summary).toMatchObject({ kind: "text", lines: 900 });
    expect(summary.head.startsWith("export const value0")).toBe(true);
    const slice = await session.follow(next);
    expect(slice.structured.content.split("\n")[0]).toBe(`export const value0 = "${"v".repeat(20)}";`);
    expect(slice.structured.end_line).toBeGreaterThan(50);
    const grep = await session.follow({ tool: "run_tool", arguments: { tool_id: "metatools:read_output", args: { handle, grep: "value899 " } } });
    expect(grep.structured.matches).toEqual([`900: export const value899 = "${"v".repeat(20)}";`]);
  });

  it("a file over the size cap is summarized, not read whole; a range still reads", async () => {
    const reply = await session.code("read_file", { path: "generated/huge.txt" });
    expect(reply.structured).toMatchObject({ total_lines: 5000, start_line: 1, end_line: 20 });
    expect(reply.hint).toMatch(/over the 97 KiB cap/);
    expect(reply.structured.hint).toBeUndefined();
    const range = await session.follow(reply.next);
    expect(range.structured.content.split("\n")[0]).toMatch(/^row 0 /);
    const tail = await session.code("read_file", { path: "generated/huge.txt", start_line: 4999, end_line: 5000 });
    expect(tail.structured.content).toMatch(/^row 4998 x+\nrow 4999 x+$/);
  });

  it("a line range past the end says how long the file is, and the suggested call works", async () => {
    const reply = await session.code("read_file", { path: "src/app.ts", start_line: 500 });
    expect(reply.error).toMatchObject({ code: "invalid_range" });
    expect((await session.follow(reply.next)).structured.end_line).toBe(21);
  });

  it("a missing path suggests the closest one, and that call works", async () => {
    const reply = await session.code("read_file", { path: "src/ap.ts" });
    expect(reply.error.code).toBe("path_not_found");
    expect(reply.next.arguments.args.path).toBe("src/app.ts");
    expect((await session.follow(reply.next)).structured.total_lines).toBe(21);
  });

  it("a symlink inside the root is followed", async () => {
    expect((await session.code("read_file", { path: "app-link.ts", end_line: 1 })).structured.content).toBe("export interface Config {");
  });
});

describe("escapes and secrets are refused with recoverable errors", () => {
  it.each([
    ["read_file", { path: "../outside.txt" }, "outside_root"],
    ["read_file", { path: "src/../../etc/passwd" }, "outside_root"],
    ["read_file", { path: "/etc/passwd" }, "outside_root"],
    ["read_file", { path: "escape/secret.txt" }, "outside_root"],
    ["tree", { path: "escape" }, "outside_root"],
    ["grep", { pattern: "x", path: "escape" }, "outside_root"],
    ["read_file", { path: ".env" }, "secret_path"],
    ["read_file", { path: "keys/id_rsa" }, "secret_path"],
    ["read_file", { path: ".git/config" }, "secret_path"],
    ["symbols", { path: ".env" }, "secret_path"],
  ])("%s %j → %s", async (tool, args, code) => {
    const reply = await session.code(tool, args);
    expect(reply).toMatchObject({ ok: false, error: { code } });
    expect(JSON.stringify(reply)).not.toContain("hunter2");
    const [next] = nextCalls(reply);
    expect(next).toBeDefined();
    expect((await session.follow(next!)).ok).toBe(true);
  });

  it("an absolute path inside the root is fine", async () => {
    const reply = await session.code("read_file", { path: join(project.root, "src/app.ts"), end_line: 1 });
    expect(reply.structured.path).toBe("src/app.ts");
  });
});

describe("broad inputs on a large real tree stay within the budget", () => {
  let big: CodeSession;
  beforeAll(async () => {
    // The project's own installed dependencies: thousands of real files.
    big = await openCodeSession(process.cwd(), { maxMs: 8000 });
  });
  afterAll(() => big?.close());

  it.each([
    ["grep", { pattern: ".", path: "node_modules" }],
    ["symbols", { pattern: "", path: "node_modules/@modelcontextprotocol" }],
    ["symbols", { pattern: "a", path: "node_modules/zod" }],
    ["symbols", { path: "node_modules" }],
    ["tree", { path: "node_modules", depth: 100 }],
    ["references", { symbol: "exports", path: "node_modules/ajv" }],
  ])(
    "%s %j",
    async (tool, args) => {
      const reply = await big.code(tool, args);
      expect(reply.ok).toBe(true);
      const { total, overflow } = reply.structured;
      expect(total).toBeGreaterThan(overflow.shown);
      expect(reply.hint).toMatch(/run_tool/);
      expect(overflow.next).toBeUndefined();
      expect((await big.follow(reply.next)).ok).toBe(true);
    },
    60_000,
  );
});
