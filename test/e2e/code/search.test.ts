/**
 * code:grep, code:references and code:tree on the multi-language fixture:
 * exact totals, by_file over the full match set, .gitignore and secrets
 * honoured, binary files skipped, and every suggested call executed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextCalls, openCodeSession, type CodeSession } from "../../helpers/code.js";
import { writePolyglot } from "../../helpers/polyglot.js";

let session: CodeSession;

beforeAll(async () => {
  session = await openCodeSession(writePolyglot().root, { maxFileBytes: 100_000 });
});
afterAll(() => session?.close());

const filesOf = (reply: Record<string, any>, key = "files") => reply.structured[key].map((f: { file: string }) => f.file);

describe("code:grep", () => {
  it("under the cap: matches grouped by file, no overflow", async () => {
    const reply = await session.code("grep", { pattern: "TODO|FIXME" });
    expect(reply.structured.files).toEqual([{ file: "docs/notes.md", lines: ["2: TODO: write the docs", "3: FIXME: later"] }]);
    expect(reply.structured.total).toBe(2);
    expect(reply.structured.overflow).toBeUndefined();
  });

  it("over the cap: exact total, by_file from every match, and next calls that work", async () => {
    const reply = await session.code("grep", { pattern: "needle" });
    const { overflow, total } = reply.structured;
    expect(total).toBe(250);
    expect(overflow.shown).toBeLessThanOrEqual(200);
    expect(overflow.by_file).toEqual([{ file: "generated/matches.txt", count: 250 }]);
    // assets.bin holds the bytes "needle" too, but it is binary: skipped and counted.
    expect(reply.structured.note).toMatch(/1 binary file/);
    const next = await session.follow(reply.next);
    expect(next.ok).toBe(true);
    const page = await session.code("grep", { pattern: "needle", offset: overflow.shown });
    expect(page.structured.files[0].lines[0]).toBe(`${overflow.shown + 1}: needle ${overflow.shown}`);
  });

  it("adds context lines, marked with -", async () => {
    const reply = await session.code("grep", { pattern: "TODO", context_lines: 1 });
    expect(reply.structured.files[0].lines).toEqual(["1- # Notes", "2: TODO: write the docs", "3- FIXME: later"]);
  });

  it("is case-insensitive unless the pattern has a capital letter", async () => {
    expect((await session.code("grep", { pattern: "todo" })).structured.total).toBe(1);
    expect((await session.code("grep", { pattern: "Todo" })).structured.total).toBe(0);
    expect((await session.code("grep", { pattern: "todo", case_sensitive: true })).structured.total).toBe(0);
  });

  it("an invalid regex is a recoverable error with the parse problem and a literal version that runs", async () => {
    const reply = await session.code("grep", { pattern: "handleRequest(" });
    expect(reply).toMatchObject({ ok: false, error: { code: "invalid_regex" } });
    expect(reply.error.message).toMatch(/missing closing \): `handleRequest\(`/);
    expect(reply.next.arguments.args.pattern).toBe("handleRequest\\(");
    const fixed = await session.follow(reply.next);
    expect(fixed.structured.total).toBeGreaterThan(0);
  });

  it("skips .gitignored and secret files", async () => {
    const reply = await session.code("grep", { pattern: "handleRequest|SECRET_TOKEN" });
    const files = filesOf(reply);
    expect(files).not.toContain("debug.log");
    expect(files).not.toContain(".env");
    expect(files).toContain(".env.example");
    expect(reply.structured.note).toMatch(/secret files/);
  });
});

describe("code:references", () => {
  it("finds identifiers only, not strings or comments, grouped by file with the definition marked", async () => {
    const reply = await session.code("references", { symbol: "handleRequest" });
    const byFile = Object.fromEntries(reply.structured.references.map((f: { file: string; lines: string[] }) => [f.file, f.lines]));
    expect(byFile["src/app.ts"]).toEqual(['10:     handleRequest("start");', "17: [def] export function handleRequest(name: string): string {"]);
    expect(byFile["src/view.tsx"].map((l: string) => l.split(":")[0])).toEqual(["1", "4"]);
    expect(byFile["java/App.java"]).toEqual(["6: [def]     public void handleRequest() {}"]);
    expect(Object.keys(byFile)).not.toContain("debug.log");
  });

  it("says it is name-based and gives the by_file distribution when over the cap", async () => {
    const tool = await session.call("describe_tool", { tool_id: "code:references" });
    expect(tool.description ?? tool.tools?.[0]?.description).toMatch(/[Nn]ame-based/);
    const reply = await session.code("references", { symbol: "widget3", limit: 1 });
    expect(reply.structured.total).toBe(1);
  });

  it("a dotted name gets a hint to look up one identifier, and that call works", async () => {
    const reply = await session.code("references", { symbol: "Server.start" });
    expect(reply.error.code).toBe("not_an_identifier");
    expect((await session.follow(reply.next)).structured.total).toBeGreaterThan(0);
  });

  it("no identifier found: suggests a text search that runs", async () => {
    const reply = await session.code("references", { symbol: "hunter2" });
    expect(reply.structured.total).toBe(0);
    const [next] = nextCalls(reply);
    expect((await session.follow(next!)).ok).toBe(true);
  });
});

describe("code:tree", () => {
  it("honours .gitignore, hides secrets, marks directories and symlinks", async () => {
    const reply = await session.code("tree", {});
    const entries: string[] = reply.structured.entries;
    expect(entries).toEqual(expect.arrayContaining(["src/", "src/app.ts", ".gitignore", ".env.example", "app-link.ts@", "escape@"]));
    for (const hidden of ["ignored/", "debug.log", ".env", "keys/id_rsa"]) expect(entries).not.toContain(hidden);
    expect(reply.structured.skipped_secret).toBe(2);
  });

  it("filters by glob at any depth, and pages over the cap with working next calls", async () => {
    const py = await session.code("tree", { glob: "*.py" });
    expect(py.structured.entries).toEqual(["generated/widgets.py", "py/service.py"]);
    const small = await session.code("tree", { limit: 5 });
    expect(small.structured.overflow).toMatchObject({ shown: 5, total: small.structured.total });
    for (const next of nextCalls(small)) expect((await session.follow(next)).ok).toBe(true);
  });
});
