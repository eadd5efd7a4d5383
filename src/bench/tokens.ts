/**
 * Token economics: what an agent's context pays to know the tools.
 *
 * - Every schema: the `tools/list` of every backend in the context, which is
 *   what a client connected to all the servers sends the model on every turn.
 * - The metatools flow, per task: metatools' own `tools/list` (three tools)
 *   and its server instructions, then one `search_tools` reply for the task's
 *   query and one `describe_tool` reply for the top hit.
 *
 * Both are counted with a real BPE tokenizer (OpenAI's cl100k_base, through
 * js-tiktoken) over the JSON a real MCP client receives.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join, resolve } from "node:path";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createMetatools, type Metatools } from "../app.js";
import { parseConfig } from "../config/load.js";
import { datasetConfig, loadDataset, sampleQueries } from "../eval/dataset.js";
import { createSessionServer } from "../serving.js";
import { everythingServer } from "./exec.js";
import { errorMessage } from "../util/errors.js";
import { importExternal } from "../util/import-external.js";

export interface TokenRow {
  /** The catalog's name, as the report shows it. */
  catalog: string;
  tools: number;
  /** Tasks measured: queries, each a search then a describe. */
  tasks: number;
  /** Every backend's tools/list, as one JSON document. */
  allSchemas: number;
  /** metatools' three tool definitions and its server instructions: paid once per session. */
  definitions: number;
  /** Mean tokens of one search_tools reply. */
  search: number;
  /** Mean tokens of one describe_tool reply (the top hit, detail "schema"). */
  describe: number;
  /** definitions + search + describe: one task's context cost through metatools. */
  flow: number;
  /** allSchemas / flow. */
  ratio: number;
  /** Share of tasks whose reply listed a tool the dataset marks relevant (so the flow measured is one that works); absent without labels. */
  foundInSearch?: number;
}

export interface TokenTask {
  query: string;
  /** Tool ids (as the app names them) that answer the query, when known. */
  relevant?: string[];
}

export type CountTokens = (text: string) => number;

/** js-tiktoken, an optional package (the tests install it, `npm ci` does not), named by variables so that building metatools does not need it. */
const TIKTOKEN = ["js-tiktoken/lite", "js-tiktoken/ranks/cl100k_base"] as const;
interface TiktokenLite {
  Tiktoken: new (ranks: unknown) => { encode(text: string): number[] };
}

/** The cl100k_base tokenizer, loaded on first use (its ranks are a few MB). */
export async function loadTokenizer(): Promise<CountTokens> {
  const [{ Tiktoken }, ranks] = (await Promise.all([importExternal(TIKTOKEN[0]), importExternal(TIKTOKEN[1])]).catch((error: unknown) => {
    throw new Error(`token economics needs js-tiktoken: npm install js-tiktoken (${errorMessage(error)})`);
  })) as [TiktokenLite, { default: unknown }];
  const encoder = new Tiktoken(ranks.default);
  return (text) => encoder.encode(text).length;
}

/** Measures one started app: its whole catalog against the metatools flow on `tasks`. */
export async function tokenEconomics(catalog: string, app: Metatools, tasks: readonly TokenTask[], count: CountTokens): Promise<TokenRow> {
  // metatools' own tools (read_output) are not part of the backends' lists.
  const records = [...app.registry.records()].filter((r) => r.namespace !== "metatools");
  // What each backend's tools/list carries, tool by tool, with the names an aggregating client gives them.
  const listed = records.map((r) => ({
    name: r.id.replace(":", "__"),
    ...(r.title ? { title: r.title } : {}),
    description: r.description,
    inputSchema: r.inputSchema,
    ...(r.outputSchema ? { outputSchema: r.outputSchema } : {}),
    ...(Object.keys(r.annotations).length ? { annotations: r.annotations } : {}),
  }));
  const allSchemas = count(JSON.stringify({ tools: listed }));

  const server = createSessionServer(app);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "token-bench", version: "1" });
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    // What a model is shown of a tool: its name, description, schema and annotations. `_meta` is for the client (such as `anthropic/alwaysLoad`), never in the context.
    const shown = tools.map(({ _meta, ...tool }) => (void _meta, tool));
    const definitions = count(JSON.stringify({ tools: shown })) + count(client.getInstructions() ?? "");
    let search = 0;
    let describe = 0;
    let described = 0;
    let found = 0;
    for (const task of tasks) {
      const searched = await callText(client, "search_tools", { query: task.query });
      search += count(searched);
      const hits = (JSON.parse(searched) as { hits?: { id: string }[] }).hits ?? [];
      if (task.relevant && hits.some((h) => task.relevant!.includes(h.id))) found++;
      if (hits[0]) {
        describe += count(await callText(client, "describe_tool", { tool_id: hits[0].id }));
        described++;
      }
    }
    const n = Math.max(1, tasks.length);
    // A task whose search found nothing has no describe; the mean describe is over those made, so the flow is never understated.
    const meanDescribe = describe / Math.max(1, described);
    const flow = definitions + search / n + meanDescribe;
    return {
      catalog,
      tools: records.length,
      tasks: tasks.length,
      allSchemas,
      definitions,
      search: search / n,
      describe: meanDescribe,
      flow,
      ratio: allSchemas / flow,
      ...(tasks.some((t) => t.relevant) ? { foundInSearch: found / n } : {}),
    };
  } finally {
    await client.close();
    await server.close();
  }
}

async function callText(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { type: string; text?: string }[];
  return content.map((c) => c.text ?? "").join("");
}

/** A retrieval set's whole catalog against the flow on `tasks` of its queries (spread over the file). */
export async function datasetTokens(dir: string, count: CountTokens, tasks: number): Promise<TokenRow> {
  const dataset = loadDataset(resolve(dir));
  // The folder's name labels the row and becomes the namespace, so it is made a valid one.
  const name =
    basename(resolve(dir))
      .replace(/[^A-Za-z0-9_.-]+/g, "-")
      .replace(/^[^A-Za-z0-9]+/, "")
      .slice(0, 64) || "dataset";
  // Measured as given, like `metatools eval`: one catalog-only backend, nothing else in the context.
  if (dataset.tools.live) throw new Error(`${dir}: the token benchmark reads a tool list (tools.jsonl), not a live set`);
  const config = datasetConfig(name, dataset.tools.file);
  const queries = sampleQueries(dataset.queries, tasks).map((q) => ({ query: q.query, relevant: q.relevant.map((id) => `${name}:${id}`) }));
  return withStartedApp(config, (app) => tokenEconomics(name, app, queries, count));
}

/** Everyday tasks for the live servers: files, code and the everything server's demos. */
const LIVE_TASKS = [
  "read a text file",
  "list the files in a directory",
  "write text to a file",
  "search for files by name",
  "find where a function is defined",
  "search the code for a string",
  "echo a message back",
  "add two numbers",
  "show the project tree",
  "get file metadata like size and modification time",
];

/** Real servers from npm over stdio (everything, filesystem) plus the built-in code tools; undefined when they are not installed. */
export async function liveTokens(dir: string, count: CountTokens): Promise<TokenRow | undefined> {
  const everything = everythingServer();
  const filesystem = resolvePackage("@modelcontextprotocol/server-filesystem/dist/index.js");
  if (!everything || !filesystem) return undefined;
  const root = join(dir, "live-root");
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "notes.md"), "# notes\n");
  const config = parseConfig(
    {
      mcpServers: { everything: { command: process.execPath, args: [everything, "stdio"] }, files: { command: process.execPath, args: [filesystem, root] } },
      // Search as a fresh install has it (hybrid), its embeddings in memory: a benchmark leaves nothing in the user's cache.
      metatools: { code: { root }, security: { scan: false, lockFile: false }, search: { embeddingCache: false } },
    },
    { file: join(dir, "live.json") },
  );
  return withStartedApp(config, (app) =>
    tokenEconomics(
      "everything + filesystem + code (live)",
      app,
      LIVE_TASKS.map((query) => ({ query })),
      count,
    ),
  );
}

async function withStartedApp<T>(config: ReturnType<typeof parseConfig>, body: (app: Metatools) => Promise<T>): Promise<T> {
  const app = createMetatools(config);
  await app.start();
  try {
    // Searched as a running server answers once its tools are embedded (hybrid, no "still embedding" note).
    await app.search.whenIdle();
    const failed = app.backends.states().filter((s) => s.status !== "ready");
    if (failed.length) throw new Error(`token economics: ${failed.map((s) => `${s.namespace} is ${s.status}${s.error ? ` (${s.error})` : ""}`).join("; ")}`);
    return await body(app);
  } finally {
    await app.close();
  }
}

export function resolvePackage(specifier: string): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch {
    return undefined;
  }
}
