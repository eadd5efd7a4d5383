import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeMarkdownReport } from "../../src/bench/markdown.js";
import type { BenchReport } from "../../src/bench/suite.js";
import { syntheticTools } from "../../src/bench/synthetic.js";
import { datasetTokens, loadTokenizer } from "../../src/bench/tokens.js";
import { runCli } from "../helpers/cli.js";
import { tempDir, writeSyntheticTools } from "../helpers/harness.js";

describe("token economics", () => {
  it("counts with a real BPE tokenizer", async () => {
    const count = await loadTokenizer();
    // cl100k_base: "hello world" is two tokens, and a long word splits into several.
    expect(count("hello world")).toBe(2);
    expect(count("antidisestablishmentarianism")).toBeGreaterThan(3);
  });

  it("sets every schema of a catalog against three definitions, a search and a describe per task", async () => {
    const dir = tempDir();
    writeSyntheticTools(dir, 400);
    const tools = syntheticTools(400);
    // Each query names its tool's own words, so search finds it; the set says which tool is relevant.
    writeFileSync(
      join(dir, "queries.jsonl"),
      tools
        .slice(0, 40)
        .map((t, i) => JSON.stringify({ id: i, query: t.description, relevant: [t.id] }))
        .join("\n"),
    );
    const count = await loadTokenizer();
    const row = await datasetTokens(dir, count, 20);
    expect(row).toMatchObject({ catalog: dir.split("/").pop(), tools: 400, tasks: 20 });
    // The baseline holds every tool's name, description and schema; the flow a fixed part and two replies.
    expect(row.allSchemas).toBeGreaterThan(tools.reduce((n, t) => n + count(t.description), 0));
    // The three definitions and the instructions: more than a bare list, within the 500-token diet.
    expect(row.definitions).toBeGreaterThan(300);
    expect(row.definitions).toBeLessThanOrEqual(500);
    expect(row.search).toBeGreaterThan(50);
    expect(row.describe).toBeGreaterThan(20);
    expect(row.ratio).toBeGreaterThan(10);
    expect(row.foundInSearch).toBeGreaterThan(0.8);
  });
});

describe("the Markdown report", () => {
  it("writes the page with its tables and both charts beside it", () => {
    const dir = tempDir();
    const report: BenchReport = {
      search: [1000, 10000].map((tools, i) => ({ tools, mode: "bm25", queries: 400, p50Ms: 0.1 * (i + 1), p99Ms: 1 + i, indexMs: 100 * (i + 1) })),
      hybrid: [1000, 10000].map((tools, i) => ({
        tools,
        mode: "hybrid",
        queries: 400,
        p50Ms: 0.4 * (i + 1),
        p99Ms: 3 + i,
        indexMs: 150 * (i + 1),
        embedPerSecond: 9000,
      })),
      embedder: "built-in",
      embedding: { queryP50Ms: 0.02, queryP99Ms: 0.08, toolsPerSecond: 9000 },
      coldStart: { tools: 10000, runs: 3, medianMs: 1200, rssMb: 190 },
      warmColdStart: { tools: 10000, runs: 3, medianMs: 1400, rssMb: 450 },
      code: [],
      exec: [],
      http: [],
      tokens: [
        {
          catalog: "big",
          tools: 2479,
          tasks: 200,
          allSchemas: 272846,
          definitions: 1019,
          search: 551,
          describe: 178,
          flow: 1748,
          ratio: 156.1,
          foundInSearch: 0.93,
        },
        { catalog: "small", tools: 32, tasks: 10, allSchemas: 5949, definitions: 1101, search: 410, describe: 282, flow: 1793, ratio: 3.3 },
      ],
    };
    const file = join(dir, "benchmarks.md");
    const written = writeMarkdownReport(file, report, "npm run bench -- --report benchmarks.md");
    expect(written).toEqual([file, join(dir, "benchmarks", "search-latency.svg"), join(dir, "benchmarks", "tokens.svg")]);
    const page = readFileSync(file, "utf8");
    expect(page).toContain("npm run bench -- --report benchmarks.md");
    expect(page).toContain("![tokens per task](benchmarks/tokens.svg)");
    expect(page).toContain("![search latency against catalog size](benchmarks/search-latency.svg)");
    expect(page).toContain("| big | 2,479 | 272,846 | 1,748 | 156.1× | 200 | 93% |");
    expect(page).toContain("156.1× fewer");
    expect(page).toContain("| BM25 only: start → first search @ 10,000 tools (ms) | 1200.00 | ≤1500 | 0.80 | ok |");
    // The hybrid rows, each against its target, and an RSS over its target said so.
    expect(page).toContain("| first-time indexing (BM25 + embedding, empty cache) @ 10,000 tools (ms) | 300.00 | ≤60000 | 0.01 | ok |");
    expect(page).toContain("| query embedding p50 (ms) | 0.02 | ≤5 | 0.00 | ok |");
    expect(page).toContain("| hybrid p50 @ 10,000 tools (ms) | 0.80 | ≤15 | 0.05 | ok |");
    expect(page).toContain("| hybrid, warm cache: start → first hybrid search @ 10,000 tools (ms) | 1400.00 | ≤2000 | 0.70 | ok |");
    expect(page).toContain("| hybrid: RSS with vectors @ 10,000 tools (MB) | 450.00 | ≤400 | 1.13 | OVER |");
    expect(page).toContain("with the built-in embedder");
    // BM25 and hybrid side by side, with what hybrid costs.
    expect(page).toContain("## Hybrid against BM25");
    expect(page).toContain("| 10,000 | 0.20 | 0.80 | 4.0× | 2.00 | 4.00 | 2.0× |");
    for (const svg of written.slice(1)) {
      expect(existsSync(svg)).toBe(true);
      const text = readFileSync(svg, "utf8");
      expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(text.trimEnd().endsWith("</svg>")).toBe(true);
      expect(text).not.toMatch(/NaN|Infinity|undefined/);
    }
    const latency = readFileSync(written[1]!, "utf8");
    for (const series of ["BM25 p50", "BM25 p99", "hybrid p50", "hybrid p99"]) expect(latency).toContain(`>${series}</text>`);
    expect(readFileSync(written[2]!, "utf8")).toContain(">big (2.48k tools)</text>");
  });

  it("draws zero and missing values without breaking the charts", () => {
    const dir = tempDir();
    const report: BenchReport = {
      search: [
        { tools: 1000, mode: "bm25", queries: 10, p50Ms: 0, p99Ms: 0.004, indexMs: 1 },
        { tools: 10000, mode: "bm25", queries: 10, p50Ms: 0.2, p99Ms: 2, indexMs: 5 },
      ],
      hybrid: [],
      code: [],
      exec: [],
      http: [],
      tokens: [{ catalog: "none found", tools: 10, tasks: 5, allSchemas: 400, definitions: 1000, search: 0, describe: 0, flow: 1000, ratio: 0.4 }],
    };
    const written = writeMarkdownReport(join(dir, "b.md"), report, "npm run bench");
    for (const svg of written.slice(1)) expect(readFileSync(svg, "utf8")).not.toMatch(/NaN|Infinity|-\d{4,}/);
    // The 0.004 ms point is labelled as such, not as "0".
    expect(readFileSync(written[1]!, "utf8")).toContain(">0.001</text>");
  });
});

describe("metatools bench --report", () => {
  it("writes the page with a command that regenerates it, naming no path or secret of this machine", async () => {
    const dir = tempDir();
    const data = join(dir, "my-set");
    writeSyntheticTools(tempDirAt(data), 200);
    writeFileSync(join(data, "queries.jsonl"), JSON.stringify({ id: 1, query: "create invoice", relevant: [] }));
    const { code, stdout } = await runCli(
      ["bench", "--suite", "tokens", "--dataset", data, "--tasks", "3", "--redis", "redis://:secretpw@127.0.0.1:1", "--report", "out/bench.md"],
      { cwd: dir },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^my-set\s+200\s/m);
    const page = readFileSync(join(dir, "out", "bench.md"), "utf8");
    expect(page).toContain("npm run bench -- --suite tokens --dataset path/to/my-set --tasks 3 --redis redis://HOST:6379 --report out/bench.md");
    expect(page).not.toContain("secretpw");
    expect(page).not.toContain(dir);
    expect(existsSync(join(dir, "out", "bench", "tokens.svg"))).toBe(true);
  });
});

function tempDirAt(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}
