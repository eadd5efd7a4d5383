/**
 * What servers say about themselves is searched, through a real client and
 * real backends: two namespaces of the same fixture (test/fixtures/about-server.mjs),
 * one whose server gives a title, a description, instructions and a search
 * hint in a tool's `_meta`, one that says nothing. Their tools' own words
 * are the same, so only what the server says tells them apart; without it
 * the tie goes to the namespace first by name ("plain"), which is what the
 * control shows.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, tempDir, type Session } from "../helpers/harness.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/about-server.mjs", import.meta.url));
const backend = (about: boolean) => ({ command: process.execPath, args: [FIXTURE], env: about ? {} : ({ ABOUT: "none" } as Record<string, string>) });

async function connect(wikiSays: boolean): Promise<Session> {
  const dir = tempDir();
  const session = await openSession(
    { mcpServers: { plain: backend(false), wiki: backend(wikiSays) }, metatools: { code: { enabled: false } } },
    { file: join(dir, "metatools.json") },
  );
  await session.app.search.semantic?.whenIdle();
  return session;
}

/** The ids search_tools ranks, over the two fixture namespaces (metatools' own plumbing tools left out). */
const ids = async (session: Session, query: string, mode?: string) =>
  ((await session.call("search_tools", { query, namespace: ["plain", "wiki"], ...(mode ? { mode } : {}) })).hits as { id: string }[]).map((h) => h.id);

describe("what a server says about itself", () => {
  let said: Session;
  let silent: Session;
  beforeAll(async () => {
    [said, silent] = await Promise.all([connect(true), connect(false)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([said?.close(), silent?.close()]);
  });

  it("its instructions and description lean search toward its tools, in every mode that reads words", async () => {
    for (const mode of ["bm25", "hybrid"]) {
      expect((await ids(said, "open the page with the incident runbook", mode))[0]).toMatch(/^wiki:/);
      expect((await ids(said, "list the onboarding pages", mode))[0]).toBe("wiki:list_pages");
      // The control: the same tools, the server saying nothing: the tie goes to the first namespace by name.
      expect((await ids(silent, "open the page with the incident runbook", mode))[0]).toMatch(/^plain:/);
      expect((await ids(silent, "list the onboarding pages", mode))[0]).toBe("plain:list_pages");
    }
  });

  it("a tool's search hint finds it, and is never shown", async () => {
    expect((await ids(said, "postmortem template"))[0]).toBe("wiki:find");
    expect(await ids(silent, "postmortem template", "bm25")).not.toContain("wiki:find");
    const described = JSON.stringify(await said.call("describe_tool", { tool_id: "wiki:find", detail: "full" }));
    expect(described).not.toContain("postmortem");
    expect(described).not.toContain("\u001b");
  });
});
