/**
 * Multi-step tasks over the public filesystem, memory and everything
 * servers, each done two ways through the three meta-tools: as one program
 * (`metatools:run_program`) and step by step, as an agent without programs
 * does it (one run_tool call per step, reading each reply). Each has the
 * answer its files or arguments make, so both ways are checked against it.
 * The benchmark (measure.ts) counts what each way costs an agent; the e2e
 * tests run both through `serve` and compare the answers.
 *
 * The servers are named `files`, `memory` and `everything` (SCRIPT_SERVERS).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A meta-tool call as an agent makes it: the reply's JSON body, parsed. */
export type MetaCall = (tool: "search_tools" | "describe_tool" | "run_tool", args: Record<string, unknown>) => Promise<Record<string, unknown>>;

export interface ScriptTask {
  name: string;
  /** What an agent searches for first, either way: the tools the task needs. */
  query: string;
  /** Writes the task's files under `dir`; returns the program's input and the answer the task has. */
  setUp(dir: string): { input: Record<string, unknown>; answer: unknown };
  /** The task as one program. */
  program: string;
  /** The task step by step: each call's reply read, the next made from it. */
  steps(call: MetaCall, input: Record<string, unknown>): Promise<unknown>;
}

/** A run_tool reply's data, as an agent reads it: its structured content, else its text (JSON when it is). */
export function replyData(body: Record<string, unknown>): unknown {
  if (body.ok === false) throw new Error(`the call failed: ${JSON.stringify(body.error)}`);
  if (body.structured !== undefined) return body.structured;
  const text = typeof body.result === "string" ? body.result : "";
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const textOf = (data: unknown): string => (typeof data === "string" ? data : String((data as { content?: unknown }).content ?? ""));
const filesOf = (listing: string): string[] => [...listing.matchAll(/^\[FILE\] (\S+)/gm)].map((m) => m[1]!);
const run = async (call: MetaCall, tool_id: string, args: Record<string, unknown>) => replyData(await call("run_tool", { tool_id, args }));

const TODO_FILES = 8;

const todoCount: ScriptTask = {
  name: "count the TODO lines across every file of a folder",
  query: "list a directory and read text files",
  setUp(dir) {
    const folder = join(dir, "todo");
    mkdirSync(folder, { recursive: true });
    let answer = 0;
    for (let i = 0; i < TODO_FILES; i++) {
      const lines = Array.from({ length: 40 }, (_, j) => ((i * 7 + j) % 5 === 0 ? `// TODO item ${i}.${j}` : `const v${j} = ${i * j};`));
      answer += lines.filter((l) => l.includes("TODO")).length;
      writeFileSync(join(folder, `part-${i}.ts`), `${lines.join("\n")}\n`);
    }
    return { input: { dir: folder }, answer };
  },
  program: `const listing = await tools.call("files:list_directory", { path: input.dir });
const names = [...listing.content.matchAll(/^\\[FILE\\] (\\S+)/gm)].map((m) => m[1]);
const texts = await Promise.all(names.map((n) => tools.call("files:read_text_file", { path: input.dir + "/" + n })));
return texts.reduce((sum, t) => sum + t.content.split("\\n").filter((l) => l.includes("TODO")).length, 0);`,
  async steps(call, input) {
    const dir = String(input.dir);
    let count = 0;
    for (const name of filesOf(textOf(await run(call, "files:list_directory", { path: dir }))))
      count += textOf(await run(call, "files:read_text_file", { path: `${dir}/${name}` }))
        .split("\n")
        .filter((l) => l.includes("TODO")).length;
    return count;
  },
};

const largestThree: ScriptTask = {
  name: "find the three largest files and return their first lines",
  query: "list a directory with file sizes and read the head of a file",
  setUp(dir) {
    const folder = join(dir, "sizes");
    mkdirSync(folder, { recursive: true });
    const sizes = [3, 41, 7, 19, 55, 12, 30, 2];
    sizes.forEach((lines, i) => {
      const text = Array.from({ length: lines }, (_, j) => `file ${i} line ${j} ${"x".repeat(40)}`).join("\n");
      writeFileSync(join(folder, `f${i}.txt`), `${text}\n`);
    });
    const top = sizes
      .map((lines, i) => ({ lines, i }))
      .sort((a, b) => b.lines - a.lines)
      .slice(0, 3);
    return { input: { dir: folder }, answer: top.map(({ i }) => ({ file: `f${i}.txt`, first: `file ${i} line 0 ${"x".repeat(40)}` })) };
  },
  program: `const listing = await tools.call("files:list_directory_with_sizes", { path: input.dir, sortBy: "size" });
const top = [...listing.content.matchAll(/^\\[FILE\\] (\\S+)/gm)].map((m) => m[1]).slice(0, 3);
return Promise.all(top.map(async (file) => ({ file, first: (await tools.call("files:read_text_file", { path: input.dir + "/" + file, head: 1 })).content.trim() })));`,
  async steps(call, input) {
    const dir = String(input.dir);
    const top = filesOf(textOf(await run(call, "files:list_directory_with_sizes", { path: dir, sortBy: "size" }))).slice(0, 3);
    const out = [];
    for (const file of top) out.push({ file, first: textOf(await run(call, "files:read_text_file", { path: `${dir}/${file}`, head: 1 })).trim() });
    return out;
  },
};

const ENTITIES = ["Ada", "Brook", "Cyan", "Dune", "Elm"];
const RELATIONS = [
  ["Ada", "mentors", "Brook"],
  ["Brook", "works_with", "Cyan"],
  ["Cyan", "reports_to", "Dune"],
  ["Dune", "mentors", "Elm"],
] as const;

/** A knowledge graph as the task's answer: its entities and relations in one order, whatever order the server keeps. */
function graphOf(data: unknown): { entities: string[]; relations: string[] } {
  const graph = data as { entities: { name: string; entityType: string }[]; relations: { from: string; relationType: string; to: string }[] };
  return {
    entities: graph.entities.map((e) => `${e.name}:${e.entityType}`).sort(),
    relations: graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort(),
  };
}

const graph: ScriptTask = {
  name: "create five entities with relations and return the graph",
  query: "create entities and relations in a knowledge graph",
  setUp: () => ({
    input: { people: ENTITIES, relations: RELATIONS },
    answer: { entities: ENTITIES.map((n) => `${n}:person`).sort(), relations: RELATIONS.map((r) => r.join(" ")).sort() },
  }),
  program: `for (const name of input.people)
  await tools.call("memory:create_entities", { entities: [{ name, entityType: "person", observations: ["added by a program"] }] });
await tools.call("memory:create_relations", { relations: input.relations.map(([from, relationType, to]) => ({ from, relationType, to })) });
const g = await tools.call("memory:read_graph", {});
return { entities: g.entities.map((e) => e.name + ":" + e.entityType).sort(), relations: g.relations.map((r) => r.from + " " + r.relationType + " " + r.to).sort() };`,
  async steps(call, input) {
    for (const name of input.people as string[])
      await run(call, "memory:create_entities", { entities: [{ name, entityType: "person", observations: ["added by a program"] }] });
    await run(call, "memory:create_relations", { relations: (input.relations as string[][]).map(([from, relationType, to]) => ({ from, relationType, to })) });
    return graphOf(await run(call, "memory:read_graph", {}));
  },
};

const PAIRS = Array.from({ length: 10 }, (_, i) => [i * 3 + 1, i * i + 2] as const);

const sums: ScriptTask = {
  name: "sum add over ten pairs",
  query: "add two numbers",
  setUp: () => ({ input: { pairs: PAIRS }, answer: PAIRS.reduce((s, [a, b]) => s + a + b, 0) }),
  program: `const said = await Promise.all(input.pairs.map(([a, b]) => tools.call("everything:get-sum", { a, b })));
return said.reduce((total, text) => total + Number(/is (-?[\\d.]+)/.exec(typeof text === "string" ? text : JSON.stringify(text))[1]), 0);`,
  async steps(call, input) {
    let total = 0;
    for (const [a, b] of input.pairs as number[][]) {
      const said = await run(call, "everything:get-sum", { a, b });
      total += Number(/is (-?[\d.]+)/.exec(typeof said === "string" ? said : JSON.stringify(said))![1]);
    }
    return total;
  },
};

export const SCRIPT_TASKS: readonly ScriptTask[] = [todoCount, largestThree, graph, sums];
