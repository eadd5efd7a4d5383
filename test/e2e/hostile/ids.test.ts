/**
 * A long unknown tool id must not freeze the server: "did you mean" compares
 * the id with every known one, and an edit distance costs the product of
 * the lengths. Over a 2,000-tool catalog, a 20,000-character id is refused
 * at the edge within a second while a search made at the same moment
 * answers within a second too; the suggestion code is bounded on its own,
 * whoever calls it; a long id of a length still accepted keeps its "did you
 * mean".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestIds } from "../../../src/meta/lookup.js";
import { nearest } from "../../../src/text/suggest.js";
import { openSession, tempDir, writeSyntheticTools, type Session } from "../../helpers/harness.js";

let session: Session;

beforeAll(async () => {
  const tools = writeSyntheticTools(tempDir(), 2000);
  session = await openSession({ mcpServers: { syn: { type: "catalog", tools } }, metatools: { code: { enabled: false } } }, { builtinCatalog: false });
});
afterAll(() => session?.close());

/**
 * Makes `call` and, at the same moment, a search; each time is measured
 * from before anything waits, so an event loop that `call` blocks shows
 * in the search's time as well as its own.
 */
async function alongside(call: () => Promise<Record<string, any>>) {
  const started = performance.now();
  const slow = call().then((reply) => ({ reply, ms: performance.now() - started }));
  const probe = new Promise((resolve) => setTimeout(resolve, 1))
    .then(() => session.call("search_tools", { query: "create an issue" }))
    .then((reply) => ({ reply, ms: performance.now() - started }));
  return { ...(await slow), probe: await probe };
}

describe("long unknown tool ids", () => {
  it("describe_tool with a 20,000-character id is refused within 1 s, and a search meanwhile answers within 1 s", async () => {
    const { reply, ms, probe } = await alongside(() => session.call("describe_tool", { tool_id: `syn:${"q".repeat(20_000)}` }));
    expect(reply).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(reply.error.message).toMatch(/tool_id: expected must NOT have more than 256 characters/);
    expect(ms).toBeLessThan(1000);
    expect(probe.reply.total).toBeGreaterThan(0);
    expect(probe.ms).toBeLessThan(1000);
  });

  it("run_tool with a 50 KB id, and describe_tool with long tool_ids, are refused the same way", async () => {
    const { reply, ms, probe } = await alongside(() => session.call("run_tool", { tool_id: `syn:${"q".repeat(50_000)}`, args: {} }));
    expect(reply).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(ms).toBeLessThan(1000);
    expect(probe.ms).toBeLessThan(1000);
    const many = await session.call("describe_tool", { tool_ids: ["syn:create_issue", `syn:${"q".repeat(20_000)}`] });
    expect(many).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(many.error.message).toMatch(/tool_ids\[1\]/);
  });

  it("search_tools refuses a 20,000-character namespace or tag within 1 s", async () => {
    const long = "q".repeat(20_000);
    for (const args of [{ namespace: long }, { namespace: ["syn", long] }, { tags: [long] }]) {
      const started = performance.now();
      const reply = await session.call("search_tools", { query: "issue", ...args });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(reply, JSON.stringify(args).slice(0, 40)).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    }
  });

  it("the suggestions themselves stay fast for any id, whoever asks", () => {
    const names = session.app.registry.namespaceRecords("syn").map((r) => r.name);
    expect(names).toHaveLength(2000);
    for (const id of [`syn:${"q".repeat(50_000)}`, `${"s".repeat(20_000)}:create_issue`, "y".repeat(50_000)]) {
      const started = performance.now();
      suggestIds(session.app, id);
      expect(performance.now() - started).toBeLessThan(1000);
    }
    const started = performance.now();
    nearest("create_issue_".repeat(2_000), names);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("an unknown id as long as the edge accepts still gets a did-you-mean that works", async () => {
    const known = session.app.registry
      .namespaceRecords("syn")
      .map((r) => r.id)
      .find((id) => /^syn:\w+::create_issue_\d+$/.test(id))!;
    const id = `${known}${"_extra".repeat(Math.floor((250 - known.length) / 6))}`;
    expect(id.length).toBeGreaterThan(200);
    expect(id.length).toBeLessThanOrEqual(256);
    const started = performance.now();
    const reply = await session.call("describe_tool", { tool_id: id });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(reply).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    expect(reply.did_you_mean[0]).toBe(known);
    const followed = await session.call(reply.next.tool, reply.next.arguments);
    expect(followed.id).toBe(known);
  });
});
