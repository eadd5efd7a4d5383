/**
 * The shipped catalog for the public memory server, through a real client:
 * with the memory, filesystem and everything servers connected, requests in
 * a person's words ("remember that Ada prefers tea") put the right kind of
 * memory tool in the top 3 (a write, a delete, a read). Without the catalog
 * the memory server's own words (entities, observations, knowledge graph)
 * leave these requests with nothing useful in the top 3; that is shown too,
 * so the test fails if the catalog stops mattering. A search that is unsure
 * says so, with a map of the namespaces its tool may be in.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

const WRITE = ["memory:create_entities", "memory:add_observations", "memory:create_relations"];
const DELETE = ["memory:delete_entities"];
const READ = ["memory:read_graph", "memory:search_nodes", "memory:open_nodes"];

const REQUESTS: [string, string[]][] = [
  ["store a fact in memory", WRITE],
  ["remember that Ada prefers tea", WRITE],
  ["forget everything about Bob", DELETE],
  ["what do you know about Ada", READ],
];

async function connect(builtinCatalog: boolean): Promise<Session> {
  const dir = tempDir();
  const session = await openSession(
    {
      mcpServers: { memory: servers.memory(join(dir, "memory.jsonl")), fs: servers.filesystem(dir), everything: servers.everything() },
      metatools: { code: { enabled: false } },
    },
    { builtinCatalog, file: join(dir, "metatools.json") },
  );
  await session.app.search.semantic?.whenIdle();
  return session;
}

const top3 = async (session: Session, query: string) => ((await session.call("search_tools", { query })).hits as { id: string }[]).slice(0, 3).map((h) => h.id);

describe("the memory server with the shipped catalog", () => {
  let session: Session;
  beforeAll(async () => {
    session = await connect(true);
  }, 30_000);
  afterAll(() => session?.close());

  it.each(REQUESTS)("%j puts the right kind of memory tool in the top 3", async (query, kind) => {
    const found = await top3(session, query);
    expect(
      found.filter((id) => kind.includes(id)),
      `top 3: ${found.join(", ")}`,
    ).not.toEqual([]);
  });

  it("says when it is unsure, with a map of where the tool may be; a confident search carries none", async () => {
    const unsure = await session.call("search_tools", { query: "what do you know about Ada" });
    expect(JSON.stringify(unsure)).toContain("Search is unsure of these hits");
    const memory = (unsure.map as { namespace: string; tools: string[] }[]).find((place) => place.namespace === "memory");
    expect(memory?.tools).toEqual(expect.arrayContaining(["search_nodes", "open_nodes", "read_graph"]));
    const sure = await session.call("search_tools", { query: "read a text file" });
    expect(sure.hits[0].id).toBe("fs:read_text_file");
    expect(sure.map).toBeUndefined();
  });
});

describe("the memory server without it", () => {
  it("misses most of the same requests", async () => {
    const session = await connect(false);
    try {
      let right = 0;
      for (const [query, kind] of REQUESTS) if ((await top3(session, query)).some((id) => kind.includes(id))) right++;
      expect(right).toBeLessThan(REQUESTS.length);
    } finally {
      await session.close();
    }
  }, 30_000);
});
