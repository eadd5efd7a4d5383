/**
 * The index cache: a namespace's analyzed index kept on disk and read
 * back on the next start instead of analyzing its tools again. What is read
 * back must rank exactly as a fresh build; anything else (other tools,
 * another analyzer, a damaged file) must be built again, never used.
 */
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { syntheticTools } from "../../../src/bench/synthetic.js";
import { CatalogIndex } from "../../../src/catalog/match.js";
import type { UpstreamTool } from "../../../src/model/tool.js";
import { ToolRegistry } from "../../../src/registry/registry.js";
import { Bm25Ranker } from "../../../src/search/bm25.js";
import { SearchEngine } from "../../../src/search/engine.js";
import { EARLY_MIN_TOOLS, IndexCache } from "../../../src/search/index-cache.js";
import { decodeNamespace, encodeNamespace } from "../../../src/search/segment-file.js";
import { tempDir } from "../../helpers/harness.js";

const QUERIES = [
  "create invoice",
  "list the github issues by date range",
  "send a slack message",
  "repositry",
  "deprecated",
  "get_user_42",
  "export order as CSV",
];

function tools(count = EARLY_MIN_TOOLS + 200): UpstreamTool[] {
  return syntheticTools(count).map(({ name, description, inputSchema }, i) => ({
    name,
    description: i === 3 ? `Deprecated: ${description}` : description,
    inputSchema,
  }));
}

/** A registry and engine over one namespace, with an index cache in `dir` (or none). */
function engineOver(list: readonly UpstreamTool[], dir: string | undefined, version = "1.0.0"): SearchEngine {
  const registry = new ToolRegistry(new CatalogIndex([]));
  const engine = new SearchEngine(registry, { indexCache: dir ? new IndexCache(dir, "/project/metatools.json", version, { checkAfterMs: 0 }) : undefined });
  registry.setNamespace("shop", list, undefined, true);
  return engine;
}

async function answers(engine: SearchEngine): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const outcome = await engine.search({ query, limit: 8, offset: 0, namespaces: [], tags: [], mode: "bm25" });
    out.push({
      query,
      total: outcome.total,
      relaxed: outcome.relaxed,
      hits: outcome.hits.map((h) => [h.record.id, Number(h.score.toFixed(9))]),
      byNamespace: outcome.byNamespace,
    });
  }
  out.push(engine.nearTerms("repositry invoise"));
  return out;
}

afterEach(() => vi.restoreAllMocks());

describe("the index cache", () => {
  it("reads a large namespace's index back instead of analyzing it, and ranks exactly as a fresh build", async () => {
    const dir = tempDir();
    const list = tools();
    const fresh = await answers(engineOver(list, undefined));
    const first = engineOver(list, dir);
    first.flush();
    expect(readdirSync(dir).filter((f) => f.endsWith(".idx"))).toHaveLength(1);

    const built = vi.spyOn(Bm25Ranker.prototype, "replaceNamespace");
    const second = engineOver(list, dir);
    expect(built).not.toHaveBeenCalled();
    expect(await answers(second)).toEqual(fresh);
  });

  it("at a start, takes the index kept for the same tool ids at once, then checks it and rebuilds it when the tools' words changed", async () => {
    const dir = tempDir();
    const list = tools();
    engineOver(list, dir).flush();
    const changed = list.map((tool, i) => (i === 10 ? { ...tool, description: "Teleport a llama across the galaxy." } : tool));
    const built = vi.spyOn(Bm25Ranker.prototype, "replaceNamespace");
    const engine = engineOver(changed, dir);
    // Same ids: the kept index is used at once (the old words still rank)…
    expect(built).not.toHaveBeenCalled();
    const teleport = () => engine.search({ query: "teleport llama", limit: 3, offset: 0, namespaces: [], tags: [], mode: "bm25" });
    expect((await teleport()).hits[0]?.record.name).not.toBe(list[10]!.name);
    // …and once checked, rebuilt from the new words.
    await engine.whenChecked();
    expect(built).toHaveBeenCalledTimes(1);
    expect((await teleport()).hits[0]?.record.name).toBe(list[10]!.name);
    expect(await answers(engine)).toEqual(await answers(engineOver(changed, undefined)));
    engine.flush();
    built.mockClear();
    const next = engineOver(changed, dir);
    await next.whenChecked();
    expect(built).not.toHaveBeenCalled();
  });

  it("builds at once when the tools are not the same ones, and after a start, whenever the words change", async () => {
    const dir = tempDir();
    const list = tools();
    engineOver(list, dir).flush();
    const built = vi.spyOn(Bm25Ranker.prototype, "replaceNamespace");
    engineOver(list.slice(1), dir);
    expect(built).toHaveBeenCalledTimes(1);

    // A running server: the namespace's second list, with other words, is built as it arrives.
    const registry = new ToolRegistry(new CatalogIndex([]));
    const engine = new SearchEngine(registry, { indexCache: new IndexCache(dir, "/project/metatools.json", "1.0.0", { checkAfterMs: 0 }) });
    registry.setNamespace("shop", list, undefined, true);
    built.mockClear();
    registry.setNamespace(
      "shop",
      list.map((tool, i) => (i === 0 ? { ...tool, description: "Teleport a llama." } : tool)),
      undefined,
      true,
    );
    expect(built).toHaveBeenCalledTimes(1);
    const hit = await engine.search({ query: "teleport llama", limit: 1, offset: 0, namespaces: [], tags: [], mode: "bm25" });
    expect(hit.hits[0]?.record.name).toBe(list[0]!.name);
  });

  it("does not use an index another version analyzed, nor a damaged file", async () => {
    const dir = tempDir();
    const list = tools();
    const fresh = await answers(engineOver(list, undefined));
    engineOver(list, dir).flush();
    const built = vi.spyOn(Bm25Ranker.prototype, "replaceNamespace");
    engineOver(list, dir, "2.0.0");
    expect(built).toHaveBeenCalledTimes(1);

    // Damaged three ways: cut short, one posting pointing past the documents, garbage.
    const file = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith(".idx"))!,
    );
    const good = readFileSync(file);
    const decoded = decodeNamespace(good)!;
    expect(decoded.segment.ids).toHaveLength(list.length);
    const { starts, docs } = decoded.segment;
    const pastTheEnd = encodeNamespace({ ...decoded, segment: { ...decoded.segment, docs: docs.map((d, i) => (i < starts[1]! ? list.length + 5 : d)) } });
    expect(decodeNamespace(pastTheEnd)).toBeUndefined();
    for (const bytes of [good.subarray(0, good.length - 7), pastTheEnd, Buffer.from("not an index at all"), Buffer.alloc(0)]) {
      writeFileSync(file, bytes);
      built.mockClear();
      const engine = engineOver(list, dir);
      expect(built).toHaveBeenCalledTimes(1);
      expect(await answers(engine)).toEqual(fresh);
    }
  });

  it("removes files no start used for a month when it writes one", () => {
    const dir = tempDir();
    const stale = join(dir, "0123456789abcdef01234567.idx");
    const recent = join(dir, "fedcba9876543210fedcba98.idx");
    writeFileSync(stale, "old");
    writeFileSync(recent, "recent");
    const longAgo = new Date(Date.now() - 40 * 24 * 3600_000);
    utimesSync(stale, longAgo, longAgo);
    engineOver(tools(), dir).flush();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  it("keeps a small namespace too, and takes it back only for its very documents, not for its ids", async () => {
    const dir = tempDir();
    const list = tools(50);
    engineOver(list, dir).flush();
    expect(readdirSync(dir).filter((f) => f.endsWith(".idx"))).toHaveLength(1);
    const fresh = await answers(engineOver(list, undefined));
    const built = vi.spyOn(Bm25Ranker.prototype, "replaceNamespace");
    expect(await answers(engineOver(list, dir))).toEqual(fresh);
    expect(built).not.toHaveBeenCalled();
    // The same ids, one description changed: the new words are found at once (a command may end before any later check).
    const edited = list.map((t, i) => (i === 7 ? { ...t, description: "Reconciles the quarterly zebra ledger." } : t));
    const outcome = await engineOver(edited, dir).search({ query: "zebra ledger", limit: 3, offset: 0, namespaces: [], tags: [], mode: "bm25" });
    expect(outcome.hits[0]?.record.name).toBe(edited[7]!.name);
    expect(built).toHaveBeenCalledTimes(1);
  });
});
