/**
 * The semantic leg of search_tools, end to end over a real MCP client: a
 * small word-vectors file written by the test (synonyms given nearby
 * vectors), the static embedder, the vector index, fusion with BM25, the
 * on-disk embedding cache, and a vectors file that is missing or corrupt.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { openSession, tempDir } from "../../helpers/harness.js";
import { BUILTIN_MODEL_FILE } from "../../../src/embed/builtin.js";
import { WordVectors } from "../../../src/embed/vectors-file.js";
import { conceptVectors, writeTools, writeVectors } from "../../helpers/semantic.js";

async function session(dir: string, vectors: string, cache: string | false = join(dir, "cache")) {
  return openSession(
    {
      mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } },
      metatools: { code: { enabled: false }, search: { embedder: { type: "static", vectors }, embeddingCache: cache } },
    },
    { builtinCatalog: false, file: join(dir, "metatools.json") },
  );
}

describe("semantic search", () => {
  it("finds a tool by meaning when the words differ, in hybrid (auto) and semantic modes", async () => {
    const dir = tempDir();
    const s = await session(dir, writeVectors(dir));
    try {
      await s.app.search.semantic!.whenIdle();
      const bm25 = await s.call("search_tools", { query: "remove a file", mode: "bm25" });
      expect(bm25.hits.map((h: { id: string }) => h.id)).not.toContain("notes:delete_entry");
      const hybrid = await s.call("search_tools", { query: "remove a file" });
      expect(hybrid.mode).toBe("hybrid");
      expect(hybrid.hits[0].id).toBe("notes:delete_entry");
      const semantic = await s.call("search_tools", { query: "remove a file", mode: "semantic" });
      expect(semantic.hits[0].id).toBe("notes:delete_entry");
    } finally {
      await s.close();
    }
  });

  it("a restart with a warm embedding cache embeds nothing again", async () => {
    const dir = tempDir();
    const vectors = writeVectors(dir);
    const first = await session(dir, vectors);
    await first.app.search.semantic!.whenIdle();
    // The five tools; metatools' own (read_output, read_resource) are ranked by their words only.
    expect(first.app.search.semantic!.embedded).toBe(5);
    await first.close();
    const second = await session(dir, vectors);
    try {
      await second.app.search.semantic!.whenIdle();
      expect(second.app.search.semantic!.embedded).toBe(0);
      expect(second.app.search.semantic!.size).toBe(5);
      expect((await second.call("search_tools", { query: "remove a file" })).hits[0].id).toBe("notes:delete_entry");
    } finally {
      await second.close();
    }
  });

  it("a missing or corrupt vectors file is reported, naming the path, and BM25 keeps working", async () => {
    const dir = tempDir();
    const corrupt = join(dir, "corrupt.mtvec");
    writeFileSync(corrupt, "not vectors at all");
    for (const vectors of [join(dir, "missing.mtvec"), corrupt]) {
      const s = await session(dir, vectors, false);
      try {
        const body = await s.call("search_tools", { query: "send email" });
        expect(body.mode).toBe("bm25");
        expect(body.hits[0].id).toBe("notes:send_mail");
        expect(JSON.stringify(body)).toContain(vectors);
      } finally {
        await s.close();
      }
    }
  });

  it("asking for semantic with the embedder turned off gives bm25 results and says how to enable one", async () => {
    const dir = tempDir();
    const s = await openSession(
      { mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } }, metatools: { code: { enabled: false }, search: { embedder: false } } },
      { builtinCatalog: false },
    );
    try {
      const body = await s.call("search_tools", { query: "send email", mode: "semantic" });
      expect(body.mode).toBe("bm25");
      expect(body.hits[0].id).toBe("notes:send_mail");
      expect(body.warning).toMatch(/metatools\.search\.embedder/);
    } finally {
      await s.close();
    }
  });

  it("metatools index embeds what is not cached, reports per namespace, and a second run embeds nothing", async () => {
    const dir = tempDir();
    const configFile = join(dir, "metatools.json");
    writeFileSync(
      configFile,
      JSON.stringify({
        mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } },
        metatools: { code: { enabled: false }, search: { embedder: { type: "static", vectors: writeVectors(dir) }, embeddingCache: join(dir, "cache") } },
      }),
    );
    const first = await runCli(["index", "--config", configFile, "--json"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("indexed notes: 5 tools");
    expect(JSON.parse(first.stdout)).toMatchObject({ tools: 5, embedded: 5, cached: 0, namespaces: { notes: 5 } });
    const second = await runCli(["index", "--config", configFile]);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/indexed 5 tools in 1 namespace with static:tiny:\w+: 0 embedded, 5 from the cache/);
    // No embedder named: the built-in one, its cache under the user's cache folder.
    const plain = join(dir, "plain.json");
    writeFileSync(plain, JSON.stringify({ mcpServers: { notes: { type: "catalog", tools: writeTools(dir) } }, metatools: { code: { enabled: false } } }));
    const cacheHome = join(dir, "xdg");
    const builtin = await runCli(["index", "--config", plain, "--json"], { env: { XDG_CACHE_HOME: cacheHome } });
    expect(builtin.code).toBe(0);
    expect(JSON.parse(builtin.stdout)).toMatchObject({
      embedder: expect.stringMatching(/^static:builtin:/),
      tools: 5,
      embedded: 5,
      cacheFile: expect.stringContaining(join(cacheHome, "metatools", "embeddings")),
    });
    const none = join(dir, "off.json");
    writeFileSync(none, JSON.stringify({ mcpServers: {}, metatools: { code: { enabled: false }, search: { embedder: false } } }));
    const refused = await runCli(["index", "--config", none]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/metatools\.search\.embedder is false, so there is nothing to index/);
  });
});

describe("word-vectors file", () => {
  it("the built-in table ships with the digest of its bytes, and a digest file for other bytes is not believed", () => {
    const shipped = readFileSync(BUILTIN_MODEL_FILE);
    const [hex, size] = readFileSync(`${BUILTIN_MODEL_FILE}.sha256`, "utf8").trim().split(/\s+/);
    expect([hex, Number(size)]).toEqual([createHash("sha256").update(shipped).digest("hex"), shipped.length]);
    expect(WordVectors.read(BUILTIN_MODEL_FILE).digest).toBe(hex);

    // A table rebuilt to the same size, its old digest file left beside it: hashed again, not taken from the file.
    const dir = tempDir();
    const file = writeVectors(dir);
    const before = readFileSync(`${file}.sha256`, "utf8");
    const table = readFileSync(file);
    table[table.length - 1] = table[table.length - 1]! ^ 0x7f;
    writeFileSync(file, table);
    writeFileSync(`${file}.sha256`, before);
    expect(WordVectors.read(file).digest).toBe(createHash("sha256").update(table).digest("hex"));
  });

  it("believes a digest file whose spot matches, of this release (64 KiB at each end) or an earlier one (1 MiB, three fields)", () => {
    const table = readFileSync(writeVectors(tempDir()));
    const file = join(tempDir(), "table.mtvec");
    writeFileSync(file, table);
    const spot = (bytes: number) =>
      createHash("sha256")
        .update(table.subarray(0, Math.min(table.length, bytes)))
        .update(table.subarray(Math.max(0, table.length - bytes)))
        .digest("hex");
    // A recorded digest that is not the file's own shows whether the file was believed or hashed again.
    const recorded = "ab".repeat(32);
    writeFileSync(`${file}.sha256`, `${recorded} ${table.length} ${spot(1 << 16)} ${1 << 16}\n`);
    expect(WordVectors.read(file).digest).toBe(recorded);
    writeFileSync(`${file}.sha256`, `${recorded} ${table.length} ${spot(1 << 20)}\n`);
    expect(WordVectors.read(file).digest).toBe(recorded);
    writeFileSync(`${file}.sha256`, `${recorded} ${table.length} ${spot(1 << 20)} 12\n`);
    expect(WordVectors.read(file).digest).toBe(createHash("sha256").update(table).digest("hex"));
  });

  it("reads rows one by one, then the whole matrix, to the same vectors", () => {
    const dir = tempDir();
    const { words } = conceptVectors();
    const file = writeVectors(dir);
    const vectorsOf = (table: WordVectors, times: number) =>
      Array.from({ length: times }, () =>
        words.map((w) => {
          const into = new Float32Array(table.dimensions);
          table.addTo(into, table.rank(w)!, 1);
          return [...into];
        }),
      ).flat();
    // Lazily (a digest file: rows read as wanted, past a threshold the matrix) against a table read whole (no digest file).
    const lazy = vectorsOf(WordVectors.read(file), 4);
    rmSync(`${file}.sha256`);
    expect(lazy).toEqual(vectorsOf(WordVectors.read(file), 4));
    expect(lazy[0]!.some((v) => v !== 0)).toBe(true);
  });

  it("ranks every word the same by its first scans of the words as by the map built after them", () => {
    const dir = tempDir();
    const { words } = conceptVectors();
    const file = writeVectors(dir);
    const scanned = WordVectors.read(file);
    // Fewer lookups than the threshold scan; more build the map: both must agree, unknown words included.
    const asked = [...words, "unknown", "", "delete remove", ...words.slice().reverse(), ...words];
    const ranks = asked.map((w) => scanned.rank(w));
    expect(ranks.slice(0, words.length)).toEqual(words.map((_, i) => i));
    expect(ranks).toEqual(asked.map((w) => (words.includes(w) ? words.indexOf(w) : undefined)));
  });
});
