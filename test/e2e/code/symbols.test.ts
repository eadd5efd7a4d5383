/**
 * code:symbols through a real MCP client, on a real multi-language tree:
 * the seed's checklist (under cap → no overflow; over cap → exact shown,
 * total, by_file and an actionable hint whose next call works), the kind
 * filter's recursion, exact lookups, bodies, and the parse cache.
 */
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextCalls, openCodeSession, type CodeSession } from "../../helpers/code.js";
import { writePolyglot } from "../../helpers/polyglot.js";

let session: CodeSession;
let root: string;

beforeAll(async () => {
  root = writePolyglot().root;
  session = await openCodeSession(root, { maxFileBytes: 100_000 });
});
afterAll(() => session?.close());

const names = (reply: Record<string, any>) => reply.structured.symbols.map((s: { name_path: string }) => s.name_path);

describe("code:symbols outlines every supported language", () => {
  it.each([
    ["src/app.ts", ["Config", "Server", "handleRequest", "makeServer"], ["method start", "method stop", "constructor constructor", "property port"]],
    ["src/view.tsx", ["Button"], []],
    ["lib/util.js", ["formatDate", "Cache"], ["method get", "method set"]],
    ["py/service.py", ["MAX_USERS", "UserService", "handle_request"], ["method get_user"]],
    ["go/server.go", ["Server", "Handler", "NewServer", "HandleRequest"], ["field port", "method Serve"]],
    ["rust/lib.rs", ["Point", "Shape", "handle_request"], ["method new", "method distance", "method area"]],
    ["java/App.java", ["App"], ["field count", "constructor App", "method handleRequest", "class Inner"]],
  ])("%s", async (path, topLevel, members) => {
    const reply = await session.code("symbols", { path });
    const symbols = reply.structured.symbols as { name: string; members?: string[] }[];
    expect(symbols.map((s) => s.name)).toEqual(expect.arrayContaining(topLevel));
    const allMembers = symbols.flatMap((s) => s.members ?? []).map((m) => m.replace(/:\d+$/, ""));
    expect(allMembers).toEqual(expect.arrayContaining(members));
    expect(reply.structured.overflow).toBeUndefined();
  });

  it("names Go methods by their receiver and Rust methods by their impl", async () => {
    expect(names(await session.code("symbols", { name_path: "Server/HandleRequest" }))).toEqual(["Server/HandleRequest"]);
    expect(names(await session.code("symbols", { name_path: "Point/distance" }))).toEqual(["Point/distance"]);
  });
});

describe("code:symbols pattern search", () => {
  it("under the cap: no overflow block", async () => {
    const reply = await session.code("symbols", { pattern: "server" });
    expect(reply.structured.total).toBe(reply.structured.symbols.length);
    expect(reply.structured.overflow).toBeUndefined();
    expect(names(reply)).toEqual(expect.arrayContaining(["Server", "makeServer", "NewServer"]));
  });

  it("over the cap: exact shown/total, by_file from the full set, a hint with real values, and a next that works", async () => {
    const reply = await session.code("symbols", { pattern: "widget" });
    const { overflow, total, symbols } = reply.structured;
    expect(total).toBe(60);
    expect(symbols).toHaveLength(50);
    expect(overflow).toMatchObject({ shown: 50, total: 60 });
    expect(overflow.by_file).toEqual([
      { file: "generated/widgets.ts", count: 40 },
      { file: "generated/widgets.py", count: 20 },
    ]);
    expect(overflow.next_offset).toBeUndefined();
    expect(reply.hint).toContain('"path":"generated/widgets.ts"');
    expect(reply.hint).toContain('"offset":50');
    const scoped = await session.follow(reply.next);
    expect(scoped.structured.total).toBe(40);
    expect(scoped.structured.overflow).toBeUndefined();
  });

  it("pages in focused mode with next_offset, and the pages add up to total", async () => {
    const seen = new Set<string>();
    let reply = await session.code("symbols", { pattern: "widget", detail_level: "full", limit: 25 });
    for (let page = 0; page < 5; page++) {
      for (const s of reply.structured.symbols) seen.add(s.name_path);
      const overflow = reply.structured.overflow;
      if (!overflow) break;
      expect(overflow.next_offset).toBe(seen.size);
      const pageCall = /next page: (run_tool\(.*\))/.exec(reply.hint);
      expect(pageCall).not.toBeNull();
      reply = await session.code("symbols", { pattern: "widget", detail_level: "full", limit: 25, offset: overflow.next_offset });
    }
    expect(seen.size).toBe(60);
  });

  it("applies kind inside the traversal: methods are found inside classes that are not methods", async () => {
    const reply = await session.code("symbols", { pattern: "get", kind: "method" });
    expect(names(reply).sort()).toEqual(["Cache/get", "UserService/get_user"]);
    const functions = await session.code("symbols", { pattern: "handle", kind: "function" });
    expect(names(functions)).toEqual(expect.arrayContaining(["handleRequest", "handle_request", "App/handleRequest", "Server/HandleRequest"]));
  });

  it("an exact name_path ignores kind and returns the body only when asked", async () => {
    const plain = await session.code("symbols", { name_path: "Server/start", kind: "class" });
    expect(plain.structured.symbols).toEqual([{ name_path: "Server/start", kind: "method", file: "src/app.ts", line: 9 }]);
    const withBody = await session.code("symbols", { name_path: "Server/start", include_body: true });
    expect(withBody.structured.symbols[0].body).toContain('handleRequest("start")');
    expect(withBody.structured.symbols[0].end_line).toBe(11);
  });

  it("sends bodies for the first five results only", async () => {
    const reply = await session.code("symbols", { pattern: "widget", path: "generated/widgets.ts", include_body: true, limit: 8 });
    const bodies = reply.structured.symbols.map((s: { body?: string }) => s.body !== undefined);
    expect(bodies).toEqual([true, true, true, true, true, false, false, false]);
    expect(reply.structured.note).toMatch(/first 5/);
  });

  it("a miss suggests the next search, and that call works", async () => {
    for (const args of [{ name_path: "Nope/widget3" }, { pattern: "zzz_nothing" }, { pattern: "Cache", kind: "function" }]) {
      const reply = await session.code("symbols", args);
      expect(reply.structured.total).toBe(0);
      const [next] = nextCalls(reply);
      expect(next, JSON.stringify(reply)).toBeDefined();
      expect((await session.follow(next!)).ok).toBe(true);
    }
  });

  it("directory overview lists files with their top-level symbols and follows its own hints", async () => {
    const reply = await session.code("symbols", {});
    const files = reply.structured.files.map((f: { file: string }) => f.file);
    expect(files).toEqual(expect.arrayContaining(["src/app.ts", "py/service.py", "go/server.go", "rust/lib.rs", "java/App.java"]));
    expect(files).not.toContain("ignored/skip.ts");
    const app = reply.structured.files.find((f: { file: string }) => f.file === "src/app.ts");
    expect(app.symbols).toEqual(expect.arrayContaining(["class Server:6", "function handleRequest:17"]));
  });

  it("caches outlines by modification time", async () => {
    await session.code("symbols", { path: "src/app.ts" });
    const before = codeStats();
    await session.code("symbols", { path: "src/app.ts" });
    const after = codeStats();
    expect(after.hits).toBeGreaterThan(before.hits);
    expect(after.misses).toBe(before.misses);
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(root, "src/app.ts"), future, future);
    await session.code("symbols", { path: "src/app.ts" });
    expect(codeStats().misses).toBe(after.misses + 1);
  });
});

function codeStats(): { hits: number; misses: number } {
  const backend = session.app.backends.backend("code") as unknown as { parserStats(): { hits: number; misses: number } };
  return { ...backend.parserStats() };
}
