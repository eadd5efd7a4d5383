/**
 * Hybrid search is the default: with no embedder named, a server ranks
 * with BM25 fused with the built-in embedder once its tools are embedded,
 * and `metatools eval` measures that configuration; `embedder: false`
 * turns it back to BM25 alone. Real servers, a real MCP client, the built
 * CLI on a small dataset the test writes.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { openSession, servers, tempDir } from "../helpers/harness.js";

const TOOLS = [
  { id: "mail::send_email", name: "send_email", description: "Send an email message to a recipient." },
  { id: "mail::list_inbox", name: "list_inbox", description: "List the messages in the inbox." },
  { id: "weather::forecast", name: "forecast", description: "Weather forecast for a city: temperature and rain." },
  { id: "files::delete_file", name: "delete_file", description: "Delete a file from the disk." },
  { id: "files::read_file", name: "read_file", description: "Read the text of a file." },
  { id: "calendar::create_event", name: "create_event", description: "Create a calendar event with a title and a time." },
];
const QUERIES = [
  { id: "1", query: "send a message to my boss", relevant: ["mail::send_email"] },
  { id: "2", query: "will it rain tomorrow in Paris", relevant: ["weather::forecast"] },
  { id: "3", query: "remove a file", relevant: ["files::delete_file"] },
  { id: "4", query: "schedule a meeting", relevant: ["calendar::create_event"] },
];

function writeDataset(): string {
  const dir = tempDir();
  writeFileSync(join(dir, "tools.jsonl"), TOOLS.map((t) => JSON.stringify(t)).join("\n"));
  writeFileSync(join(dir, "queries.jsonl"), QUERIES.map((q) => JSON.stringify(q)).join("\n"));
  return dir;
}

/** The mode names that start the rows of `metatools eval`'s table (the lines before the first blank one). */
function rows(stdout: string): string[] {
  return stdout
    .split("\n\n")[0]!
    .split("\n")
    .slice(1)
    .filter(Boolean)
    .map((line) => line.split(/\s+/)[0]!);
}

describe("search with no embedder named", () => {
  it("is hybrid with the built-in embedder once embedded; embedder: false ranks with bm25 alone", async () => {
    const hybrid = await openSession({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }, { builtinCatalog: false });
    try {
      expect(hybrid.app.config.search.embedder).toEqual({ type: "builtin" });
      await hybrid.app.search.semantic!.whenIdle();
      expect(hybrid.app.search.semantic!.embedder!.id).toMatch(/^static:builtin:/);
      // Every tool but metatools' own (ranked by their words only).
      expect(hybrid.app.search.semantic!.size).toBe(hybrid.app.registry.size - hybrid.app.registry.namespaceRecords("metatools").length);
      const body = await hybrid.call("search_tools", { query: "add two numbers" });
      expect(body.mode).toBe("hybrid");
      expect(JSON.stringify(body)).not.toContain("still embedding");
      expect(body.hits[0].id).toBe("everything:get-sum");
    } finally {
      await hybrid.close();
    }
    const off = await openSession(
      { mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false }, search: { embedder: false } } },
      { builtinCatalog: false },
    );
    try {
      expect(off.app.search.semantic).toBeUndefined();
      const body = await off.call("search_tools", { query: "add two numbers" });
      expect(body.mode).toBe("bm25");
      expect(body.hits[0].id).toBe("everything:get-sum");
    } finally {
      await off.close();
    }
  });
});

describe("metatools eval", () => {
  it("with no flags runs the default configuration and labels its row hybrid", async () => {
    const dir = writeDataset();
    const { code, stdout } = await runCli(["eval", dir], { cwd: dir });
    expect(code).toBe(0);
    expect(rows(stdout)).toEqual(["hybrid"]);
    expect(stdout).toMatch(/^hybrid\s+(\d\.\d{4}\s+){6}\s*4\s+6$/m);
    const json = await runCli(["eval", dir, "--json"], { cwd: dir });
    expect(Object.keys(JSON.parse(json.stdout))).toEqual(["hybrid"]);
    expect(JSON.parse(json.stdout).hybrid).toMatchObject({ queries: 4, tools: 6 });
  });

  it("--misses N lists the failed queries worst first, with the expected tool and the top 3; a split field gets rows of its own", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "tools.jsonl"), TOOLS.map((t) => JSON.stringify(t)).join("\n"));
    const queries = [
      ...QUERIES.map((q) => ({ ...q, split: "plain" })),
      // Words no tool has, and a tool it cannot find: a miss.
      { id: "5", query: "zebra quokka", relevant: ["calendar::create_event"], split: "odd" },
    ];
    writeFileSync(join(dir, "queries.jsonl"), queries.map((q) => JSON.stringify(q)).join("\n"));
    const { code, stdout } = await runCli(["eval", dir, "--mode", "bm25", "--misses", "2"], { cwd: dir });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^bm25\s+(\d\.\d{4}\s+){6}\s*5\s+6$/m);
    expect(stdout).toMatch(/^ {2}odd\s+0\.0000\s+(\d\.\d{4}\s+){5}\s*1\s+6$/m);
    expect(stdout).toMatch(/^ {2}plain\s+(\d\.\d{4}\s+){6}\s*4\s+6$/m);
    expect(stdout).toMatch(/bm25: the 2 worst of the queries whose tool was not first\n/);
    expect(stdout).toMatch(/\n {2}5 "zebra quokka"\n {4}expected calendar::create_event \(not in the top 10\); top: /);
    const json = JSON.parse((await runCli(["eval", dir, "--mode", "bm25", "--misses", "9", "--json"], { cwd: dir })).stdout);
    const misses = json.bm25.misses as { id: string; rank?: number; expected: string[] }[];
    expect(misses.find((m) => m.id === "5")).toEqual({ id: "5", query: "zebra quokka", expected: ["calendar::create_event"], top: expect.any(Array) });
    // Worst first: those not found at all, then by how far down their tool came.
    const ranks = misses.map((m) => m.rank ?? 11);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(Object.keys(json.bm25.splits)).toEqual(["odd", "plain"]);
  });

  it("--mode all reports bm25, semantic and hybrid with the built-in embedder", async () => {
    const dir = writeDataset();
    const { code, stdout } = await runCli(["eval", dir, "--mode", "all"], { cwd: dir });
    expect(code).toBe(0);
    expect(rows(stdout)).toEqual(["bm25", "semantic", "hybrid"]);
    const json = JSON.parse((await runCli(["eval", dir, "--mode", "all", "--embedder", "builtin", "--json"], { cwd: dir })).stdout);
    expect(Object.keys(json)).toEqual(["bm25", "semantic", "hybrid"]);
    for (const mode of ["bm25", "semantic", "hybrid"]) {
      expect(json[mode]).toMatchObject({ queries: 4, tools: 6 });
      for (const metric of ["hit@1", "mrr@10", "ndcg@10"]) expect(json[mode][metric]).toBeGreaterThanOrEqual(0);
    }
  });

  it("with embedder: false in the config runs bm25, and --mode all says what it skipped", async () => {
    const dir = writeDataset();
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ metatools: { search: { embedder: false } } }));
    const plain = await runCli(["eval", dir], { cwd: dir });
    expect(plain.code).toBe(0);
    expect(rows(plain.stdout)).toEqual(["bm25"]);
    const all = await runCli(["eval", dir, "--mode", "all"], { cwd: dir });
    expect(rows(all.stdout)).toEqual(["bm25"]);
    expect(all.stderr).toContain("skipping semantic, hybrid: metatools.search.embedder is false");
    // A flag still chooses an embedder over the config.
    const chosen = await runCli(["eval", dir, "--mode", "all", "--embedder", "builtin"], { cwd: dir });
    expect(rows(chosen.stdout)).toEqual(["bm25", "semantic", "hybrid"]);
  });

  it("never scores a fallback under the mode asked for: an embedder that cannot load fails the run, naming why", async () => {
    const dir = writeDataset();
    for (const mode of ["semantic", "hybrid"]) {
      const { code, stdout, stderr } = await runCli(["eval", dir, "--mode", mode, "--vectors", join(dir, "missing.mtvec")], { cwd: dir });
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain(`mode "${mode}" is unavailable`);
      expect(stderr).toContain("missing.mtvec");
    }
  });

  it("refuses an embedder it does not know, naming those it does", async () => {
    const { code, stderr } = await runCli(["eval", writeDataset(), "--embedder", "glove"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/--embedder takes builtin .* or use/);
  });
});
