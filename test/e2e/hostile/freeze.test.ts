/**
 * One call must never freeze the others: a catastrophic regular expression,
 * a glob that backtracks, a huge query. Each answers within its deadline
 * while a call on another tool, made at the same moment, answers within a
 * second; the server is still up afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { syntheticTools, toJsonl } from "../../../src/bench/synthetic.js";
import { openCodeSession, type CodeSession } from "../../helpers/code.js";
import { openSession, tempDir, type Session } from "../../helpers/harness.js";

let session: CodeSession;

beforeAll(async () => {
  const root = tempDir();
  writeFileSync(join(root, "aaa.txt"), `${"a".repeat(28)}!`);
  writeFileSync(join(root, `${"a".repeat(200)}.txt`), "long name\n");
  mkdirSync(join(root, "lib"));
  writeFileSync(join(root, "lib", "util.ts"), "export const a = 1;\n");
  writeFileSync(join(root, "ab.txt"), Buffer.concat([Buffer.from(randomBytes((1 << 20) - 1).map((b) => (b & 1 ? 0x61 : 0x62))), Buffer.from("c")]));
  writeFileSync(join(root, "big.txt"), Array.from({ length: 2000 }, (_, i) => `line ${i} ${"a".repeat(i % 50)}`).join("\n"));
  session = await openCodeSession(root);
});
afterAll(() => session?.close());

/**
 * Runs `slow`, and 20 ms later a search; returns both replies with the times
 * each took. The search's time counts from before its timer, so a blocked
 * event loop (which delays the timer too) shows in it.
 */
async function alongside(slow: () => Promise<Record<string, any>>, target: Session = session) {
  const started = performance.now();
  const slowCall = slow().then((reply) => ({ reply, ms: performance.now() - started }));
  const probeStart = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const probe = await target.call("search_tools", { query: "read a file" });
  const probeMs = performance.now() - probeStart;
  return { ...(await slowCall), probe, probeMs };
}

describe("calls that would freeze the server", () => {
  it("code:grep with (a+)+$ answers within its deadline, and a search meanwhile within 1 s", async () => {
    const { reply, ms, probe, probeMs } = await alongside(() => session.code("grep", { pattern: "(a+)+$" }));
    expect(probe.total).toBeGreaterThan(0);
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(2000);
    expect(reply.ok).toBe(true);
    // The pattern ends at a line's end: "aaa…a!" does not match, the long lines of big.txt do.
    expect(JSON.stringify(reply.structured.files)).not.toContain("aaa.txt");
  });

  it("run_tool's timeout_ms bounds a built-in call: the reply comes at the deadline with a narrower call next", async () => {
    const started = performance.now();
    const reply = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "(a|aa)+(b|c)*$" }, timeout_ms: 1 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(reply).toMatchObject({ ok: false, error: { code: "timeout" } });
    expect(reply.next).toEqual({ tool: "run_tool", arguments: { tool_id: "code:grep", args: { pattern: "(a|aa)+(b|c)*$", path: "lib" } } });
    expect(reply.hint).toMatch(/give it more time: .*timeout_ms: 2\b/);
  });

  it("a linear but heavy pattern over a 1 MiB line stops at its deadline, in a worker, and the loop stays free", async () => {
    const { reply, ms, probeMs } = await alongside(() =>
      session.call("run_tool", { tool_id: "code:grep", args: { pattern: "(?:(?:a|b)(?:a|b|ab|ba)){40}c", path: "ab.txt" }, timeout_ms: 1500 }),
    );
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(2500);
    expect(reply).toMatchObject({ ok: false, error: { code: "timeout" } });
  });

  it("a 68 KB pattern is refused at the edge, quoted short", async () => {
    const pattern = Array.from({ length: 1500 }, (_, i) => `${"a".repeat(40)} z${i}`).join("|");
    const { reply, probeMs } = await alongside(() => session.code("grep", { pattern }));
    expect(probeMs).toBeLessThan(1000);
    expect(reply).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(JSON.stringify(reply).length).toBeLessThan(10_000);
  });

  it("a pattern no linear engine can run is refused with the reason and a literal search to try", async () => {
    const reply = await session.code("grep", { pattern: "(a)\\1" });
    expect(reply).toMatchObject({ ok: false, error: { code: "invalid_regex" } });
    expect(reply.error.message).toMatch(/backreferences/);
    const lookahead = await session.code("grep", { pattern: "foo(?=bar)" });
    expect(lookahead.error.message).toMatch(/lookahead/);
    expect((await session.follow(lookahead.next)).ok).toBe(true);
  });

  it("code:tree with the glob *a*a*a*a*b over a 200-character name answers at once", async () => {
    const { reply, ms, probeMs } = await alongside(() => session.code("tree", { glob: "*a*a*a*a*b" }));
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(2000);
    expect(reply.structured.entries).toEqual([]);
    const hit = await session.code("tree", { glob: "*a*a*a*a*.txt" });
    expect(hit.structured.entries).toContain(`${"a".repeat(200)}.txt`);
  });

  it("metatools:read_output with grep (a+)+$ over a handle answers at once", async () => {
    const spilled = await session.code("read_file", { path: "big.txt" });
    const handle = spilled.handle as string;
    expect(handle).toMatch(/^@out_/);
    const { reply, ms, probeMs } = await alongside(() => session.call("run_tool", { tool_id: "metatools:read_output", args: { handle, grep: "(a+)+$" } }));
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(2000);
    expect(reply.structured.total).toBeGreaterThan(1000);
  });

  it("search_tools with a 750 KB query of distinct unknown words answers fast, saying the query was cut", async () => {
    const query = Array.from({ length: 100_000 }, (_, i) => `zq${i.toString(36)}x`).join(" ");
    expect(query.length).toBeGreaterThan(750_000);
    const { reply, ms, probeMs } = await alongside(() => session.call("search_tools", { query }));
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(2000);
    expect(JSON.stringify(reply)).toMatch(/only its first \d+ were used/);
  });

  it("the server is still up and answers normally", async () => {
    const reply = await session.code("grep", { pattern: "long name" });
    expect(reply.structured.files).toHaveLength(1);
  });
});

describe("a huge query over a large catalog", () => {
  let large: Session;
  beforeAll(async () => {
    const file = join(tempDir(), "tools.jsonl");
    writeFileSync(file, toJsonl(syntheticTools(5000)));
    large = await openSession({ mcpServers: { synth: { type: "catalog", tools: file } }, metatools: { code: { enabled: false } } });
  });
  afterAll(() => large?.close());

  const query = Array.from({ length: 100_000 }, (_, i) => `zq${i.toString(36)}x`).join(" ");

  it("750 KB of distinct unknown words answers within 1 s, and so does a search made meanwhile", async () => {
    // In the default mode (hybrid: the query is embedded too), then BM25 alone.
    const { reply, ms, probe, probeMs } = await alongside(() => large.call("search_tools", { query }), large);
    expect(probe.total).toBeGreaterThan(0);
    expect(probeMs).toBeLessThan(1000);
    expect(ms).toBeLessThan(1000);
    expect(JSON.stringify(reply)).toMatch(/only its first \d+ were used/);
    const bm25 = await large.call("search_tools", { query, mode: "bm25" });
    expect(bm25.total).toBe(0);
    expect(bm25.hint).toMatch(/only its first \d+ were used/);
  });

  // A query with no known word embeds to the zero vector, similar to nothing: hybrid finds nothing either.
  it("in hybrid mode too, words no tool has find nothing", async () => {
    await large.app.search.semantic!.whenIdle();
    const reply = await large.call("search_tools", { query });
    expect(reply.mode).toBe("hybrid");
    expect(reply.total).toBe(0);
  });
});
