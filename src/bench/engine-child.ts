/**
 * One engine measured in a process of its own (engines.ts starts it with
 * --expose-gc): `node engine-child.js ENGINE MODE TOOLS QUERIES`. The
 * documents (and for hybrid, every tool's vector from the built-in
 * embedder) are made first; then the engine is built over them, warmed,
 * and what it holds is weighed (heap + external memory after a full
 * collection, and the vector kernel's memory, which being shared is not in
 * `external`; its inputs dropped, so only what the engine keeps counts);
 * then each query is timed. Prints an EngineMeasure as JSON.
 */
import { CatalogIndex } from "../catalog/match.js";
import { stderr, stdout } from "../cli/output.js";
import { loadBuiltinEmbedder } from "../embed/builtin.js";
import type { Embedder } from "../embed/types.js";
import { ToolRegistry } from "../registry/registry.js";
import { embeddingText, SEARCH_FIELDS, toDocument } from "../search/documents.js";
import { SearchEngine } from "../search/engine.js";
import { queryParts } from "../search/query-parts.js";
import { kernelBytes } from "../search/kernel/module.js";
import { SemanticIndex } from "../search/semantic.js";
import { silentLogger } from "../util/log.js";
import { percentile } from "./measure.js";
import { syntheticQueries, syntheticTools } from "./synthetic.js";

export type EngineName = "metatools" | "minisearch" | "orama";
export type EngineMode = "bm25" | "hybrid";

export interface EngineMeasure {
  /** Documents (and vectors) given to the engine until it answers its first search. */
  buildMs: number;
  p50Ms: number;
  p99Ms: number;
  /** What the engine holds: heap and external memory (typed arrays, WebAssembly) after a full collection, less the same before it was built. */
  memoryMb: number;
  /** Queries timed: all asked for, or as many as the time allowed took (a slow engine at 100,000 tools). */
  queries: number;
}

/** Time the timed queries may take, per engine: past it, the percentiles are of the queries done (at least 20). */
const QUERY_BUDGET_MS = 45_000;
/** Queries run before timing (code optimized, WebAssembly compiled by its optimizing tier), or as many as this time takes. */
const WARM_UP = { queries: 200, ms: 5_000 };

/** The peers: optional packages (the tests install them, `npm ci` does not), named by variables so that building metatools does not need them. */
const PEERS = { minisearch: "minisearch", orama: "@orama/orama" } as const;

interface MiniSearchModule {
  default: new (options: { fields: string[] }) => { addAll(docs: object[]): void; search(query: string): unknown[] };
}

interface OramaModule {
  create(options: { schema: Record<string, string> }): object;
  insertMultiple(db: object, docs: object[], batchSize: number): unknown;
  search(db: object, params: object): unknown;
}

type Search = (query: string, vector: () => Promise<Float32Array>) => Promise<unknown> | unknown;

const TOP = 10;

const gc = (globalThis as { gc?: () => void }).gc;

function heldBytes(): number {
  gc!();
  gc!();
  const { heapUsed, external } = process.memoryUsage();
  // The vector kernel's memory is shared between threads, and shared memory is not in `external`.
  return heapUsed + external + kernelBytes();
}

async function main(): Promise<void> {
  const [engine, mode, tools, queryCount] = process.argv.slice(2) as [EngineName, EngineMode, string, string];
  if (!gc) throw new Error("run with --expose-gc");
  const size = Number(tools);
  const registry = new ToolRegistry(new CatalogIndex([]));
  registry.setNamespace(
    "bench",
    syntheticTools(size).map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    undefined,
    true,
  );
  const records = registry.namespaceRecords("bench");
  const builtin = loadBuiltinEmbedder();
  let vectors: Map<string, Float32Array> | undefined;
  if (mode === "hybrid") {
    const texts = records.map(embeddingText);
    const embedded = await builtin.embed(texts, "document");
    vectors = new Map(texts.map((text, i) => [text, embedded[i]!]));
  }
  let documents: ReturnType<typeof toDocument>[] | undefined = engine === "metatools" ? undefined : records.map(toDocument);
  const before = heldBytes();
  const started = performance.now();
  const run = await build(engine, mode, registry, documents, vectors, builtin);
  const first = syntheticQueries(1)[0]!;
  const queryVector = async (query: string) => (await builtin.embed(queryParts(query), "query"))[0]!;
  await run(first, () => queryVector(first));
  const buildMs = performance.now() - started;
  documents = undefined;
  vectors = undefined;
  const memoryMb = (heldBytes() - before) / 2 ** 20;
  const queries = syntheticQueries(Number(queryCount));
  const warming = performance.now();
  for (let i = 0; i < WARM_UP.queries && (i < 5 || performance.now() - warming < WARM_UP.ms); i++) {
    const query = queries[i % queries.length]!;
    await run(query, () => queryVector(query));
  }
  const times: number[] = [];
  const began = performance.now();
  for (const query of queries) {
    if (times.length >= 20 && performance.now() - began > QUERY_BUDGET_MS) break;
    const t0 = performance.now();
    await run(query, () => queryVector(query));
    times.push(performance.now() - t0);
  }
  const queried = times.length;
  times.sort((a, b) => a - b);
  const measure: EngineMeasure = { buildMs, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), memoryMb, queries: queried };
  stdout().json(measure);
}

async function build(
  engine: EngineName,
  mode: EngineMode,
  registry: ToolRegistry,
  documents: ReturnType<typeof toDocument>[] | undefined,
  vectors: Map<string, Float32Array> | undefined,
  builtin: Embedder,
): Promise<Search> {
  if (engine === "metatools") {
    // The built-in embedder for queries; the tools' vectors as made before (the same ones the peers get).
    const table: Embedder = {
      id: builtin.id,
      dimensions: builtin.dimensions,
      ...(builtin.fusionWeight ? { fusionWeight: builtin.fusionWeight } : {}),
      embed: (texts, role) => (role === "document" ? Promise.resolve(texts.map((t) => vectors!.get(t)!)) : builtin.embed(texts, role)),
    };
    const semantic = mode === "hybrid" ? new SemanticIndex(() => Promise.resolve(table), { dir: undefined }, silentLogger) : undefined;
    // Over the tools listed before: the engine indexes them as it is made.
    const engineOver = new SearchEngine(registry, { semantic });
    await engineOver.whenIdle();
    return (query) => engineOver.search({ query, limit: TOP, offset: 0, namespaces: [], tags: [], mode });
  }
  const docs = documents!.map((d, i) => ({ ...d, id: String(i) }));
  if (engine === "minisearch") {
    const { default: MiniSearch } = (await import(PEERS.minisearch)) as MiniSearchModule;
    const index = new MiniSearch({ fields: [...SEARCH_FIELDS] });
    index.addAll(docs);
    return (query) => index.search(query).slice(0, TOP);
  }
  const { create, insertMultiple, search: oramaSearch } = (await import(PEERS.orama)) as OramaModule;
  const schema = Object.fromEntries(SEARCH_FIELDS.map((f) => [f, "string"]));
  const db = create({ schema: mode === "hybrid" ? { ...schema, embedding: `vector[${builtin.dimensions}]` } : schema });
  const records = registry.namespaceRecords("bench");
  const rows = mode === "hybrid" ? docs.map((d, i) => ({ ...d, embedding: Array.from(vectors!.get(embeddingText(records[i]!))!) })) : docs;
  await insertMultiple(db, rows, 1000);
  if (mode === "bm25") return (query) => oramaSearch(db, { term: query, limit: TOP });
  return async (query, vector) =>
    oramaSearch(db, { mode: "hybrid", term: query, vector: { value: Array.from(await vector()), property: "embedding" }, similarity: 0, limit: TOP });
}

main().catch((error: unknown) => {
  stderr().write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
