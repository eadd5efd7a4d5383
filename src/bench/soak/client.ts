/**
 * One soak client: an MCP SDK client over Streamable HTTP that opens a
 * session, makes 10–40 mixed calls (searches, describes, small runs, now
 * and then a 1–5 MB result that becomes a handle, and the re-reads of
 * handles that are due), then ends the session one of three ways in turn:
 * closed (DELETE), dropped (the transport killed, no DELETE), or left open
 * for the server's idle sweep. Then it starts over, until told to stop.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { HandlePool, ReadTask } from "./handles.js";
import { statedPromise } from "./handles.js";
import { TOKENS } from "./server.js";
import { errorMessage } from "../../util/errors.js";

export interface ClientStats {
  calls: number;
  /** Real faults: `isError: true`, a JSON-RPC error, a failed connect. Expected failures (`ok: false`) are `recoverable`. */
  faults: number;
  firstFault?: string;
  /** `ok: false` answers by error code: a renamed tool, a crashed backend (what churn is expected to cause). */
  recoverable: Record<string, number>;
  sessions: { closed: number; dropped: number; leftOpen: number };
}

export interface ClientPlan {
  index: number;
  url: string;
  /** The filesystem server's folder: what its tools may read. */
  files: string;
  pool: HandlePool;
  stats: ClientStats;
  stopping: () => boolean;
  /** The configured handle lifetime, for a reply that states none. */
  outputTtlMs: number;
  /** A session left open is released here after the server has surely swept it. */
  leaveOpen: (client: Client) => void;
}

const QUERIES = ["echo a message", "read a text file", "list a directory", "large text document", "add two numbers", "answer with a message", "file info"];
const FIXED_IDS = ["everything:echo", "everything:get-sum", "filesystem:read_text_file", "filesystem:list_directory", "crashy:blob", "crashy:ping"];
/** A client asks for a large result at most this often: 12 clients × 3 MB on average every 30 s is ~70 MB of outputs a minute. */
const BIG_EVERY_MS = 30_000;
const ENDINGS = ["closed", "dropped", "leftOpen"] as const;
/**
 * A client takes a step every 400 ms on average, however fast the server answers: a steady load, so what grows with the
 * load (sessions, handles) grows only if the server keeps it. A server slower than this falls behind; it is not caught up in a burst.
 */
const STEP_MS = 400;

export function newStats(): ClientStats {
  return { calls: 0, faults: 0, recoverable: {}, sessions: { closed: 0, dropped: 0, leftOpen: 0 } };
}

export async function runClient(plan: ClientPlan): Promise<void> {
  const token = plan.index % TOKENS.length;
  const state = { churn: { blob: "churn:blob_r0", ping: "churn:ping_r0" }, lastBig: Date.now() - Math.random() * BIG_EVERY_MS, n: 0, nextAt: Date.now() };
  for (let session = plan.index; !plan.stopping(); session++) {
    const transport = new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers: { Authorization: `Bearer ${TOKENS[token]}` } } });
    const client = new Client({ name: `soak-${plan.index}`, version: "1.0.0" });
    try {
      await client.connect(transport);
    } catch (error) {
      fault(plan.stats, `connect: ${errorMessage(error)}`);
      await client.close().catch(() => {});
      await pause(1000);
      continue;
    }
    const steps = 10 + Math.floor(Math.random() * 31);
    for (let i = 0; i < steps && !plan.stopping(); i++) {
      state.nextAt = Math.max(state.nextAt, Date.now() - STEP_MS) + STEP_MS * (0.5 + Math.random());
      await pause(state.nextAt - Date.now());
      await step(client, plan, token, state);
    }
    const ending = ENDINGS[session % ENDINGS.length]!;
    plan.stats.sessions[ending]++;
    if (ending === "closed") await transport.terminateSession().catch(() => {});
    if (ending === "leftOpen") plan.leaveOpen(client);
    else await client.close().catch(() => {});
  }
}

type State = { churn: Record<"blob" | "ping", string>; lastBig: number; n: number; nextAt: number };

async function step(client: Client, plan: ClientPlan, token: number, state: State): Promise<void> {
  const due = plan.pool.due(token);
  if (due) return readBack(client, plan, due);
  const n = state.n++;
  if (Date.now() - state.lastBig >= BIG_EVERY_MS) {
    state.lastBig = Date.now();
    return big(client, plan, token, state, n % 2 ? "churn:blob" : "crashy:blob");
  }
  const pick = Math.random();
  if (pick < 0.05) return learnChurn(client, plan, state);
  if (pick < 0.3) return void (await call(client, plan, "search_tools", { query: QUERIES[n % QUERIES.length] }));
  if (pick < 0.5) {
    const ids = [...FIXED_IDS, state.churn.blob, state.churn.ping];
    const detail = (["summary", "schema", "full"] as const)[n % 3];
    return void (await call(client, plan, "describe_tool", { tool_id: ids[n % ids.length], detail_level: detail }));
  }
  const runs: [string, Record<string, unknown>][] = [
    ["everything:echo", { message: `hello ${n % 50}` }],
    ["everything:get-sum", { a: n % 7, b: 3 }],
    ["filesystem:read_text_file", { path: join(plan.files, `note-${n % 20}.txt`), head: 5 }],
    ["filesystem:list_directory", { path: plan.files }],
    ["crashy:ping", { message: `ping ${n}` }],
    ["churn:ping", { message: `ping ${n}` }],
  ];
  const [toolId, args] = runs[n % runs.length]!;
  await run(client, plan, state, toolId, args);
}

/** The churning backend's tools are renamed every few seconds: whoever calls them looks up their current names. */
async function learnChurn(client: Client, plan: ClientPlan, state: State): Promise<void> {
  const reply = await call(client, plan, "search_tools", { query: "blob ping", namespace: "churn", limit: 10 });
  for (const hit of (reply?.hits ?? []) as { id: string }[]) {
    if (/^churn:blob/.test(hit.id)) state.churn.blob = hit.id;
    if (/^churn:ping/.test(hit.id)) state.churn.ping = hit.id;
  }
}

/** run_tool; `churn:blob` and `churn:ping` stand for their current names, looked up again and retried once when renamed since. */
async function run(
  client: Client,
  plan: ClientPlan,
  state: State,
  toolId: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const kind = toolId === "churn:blob" ? "blob" : toolId === "churn:ping" ? "ping" : undefined;
  const reply = await call(client, plan, "run_tool", { tool_id: kind ? state.churn[kind] : toolId, args });
  if (!kind || (reply?.error as { code?: string } | undefined)?.code !== "unknown_tool") return reply;
  await learnChurn(client, plan, state);
  return call(client, plan, "run_tool", { tool_id: state.churn[kind], args });
}

/** A 1–5 MB result: over the inline budget, so its reply carries a handle, kept in the pool for reading back. */
async function big(client: Client, plan: ClientPlan, token: number, state: State, toolId: string): Promise<void> {
  const seed = `s${plan.index}x${Math.random().toString(36).slice(2, 10)}`;
  const ticket = plan.pool.begin(token);
  try {
    const reply = await run(client, plan, state, toolId, { mb: 1 + Math.floor(Math.random() * 5), seed });
    if (reply?.ok !== true) return;
    if (typeof reply.handle !== "string") return fault(plan.stats, `${toolId}: a result of megabytes came back without a handle`);
    const bytes = (reply.summary as { bytes?: number } | undefined)?.bytes ?? 0;
    plan.pool.add(ticket, { handle: reply.handle, bytes, seed, ...statedPromise(reply, ticket.sentAt, plan.outputTtlMs) });
  } finally {
    plan.pool.end(ticket);
  }
}

async function readBack(client: Client, plan: ClientPlan, task: ReadTask): Promise<void> {
  const reply = await call(client, plan, "run_tool", { tool_id: "metatools:read_output", args: { handle: task.held.handle, start_line: 1, end_line: 2 } });
  if (!reply) return; // a fault, counted as such; the read is not scored
  const content = (reply.structured as { content?: unknown } | undefined)?.content;
  if (reply.ok === true && typeof content === "string") return plan.pool.record(task, content);
  const code = (reply.error as { code?: string } | undefined)?.code;
  plan.pool.record(task, undefined, code ?? JSON.stringify(reply).slice(0, 200));
}

/** One call; its reply's JSON when the call was answered, undefined on a fault (counted). */
async function call(client: Client, plan: ClientPlan, name: string, args: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
  plan.stats.calls++;
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text?: string }[] | undefined)?.find((c) => c.type === "text")?.text ?? "";
    if (result.isError) return fault(plan.stats, `${name}: ${text.slice(0, 200)}`);
    const reply = JSON.parse(text) as Record<string, unknown>;
    if (reply.ok === false) {
      const code = (reply.error as { code?: string } | undefined)?.code ?? "unknown";
      plan.stats.recoverable[code] = (plan.stats.recoverable[code] ?? 0) + 1;
    }
    return reply;
  } catch (error) {
    return fault(plan.stats, `${name} ${JSON.stringify(args).slice(0, 80)}: ${errorMessage(error)}`);
  }
}

function fault(stats: ClientStats, what: string): undefined {
  stats.faults++;
  stats.firstFault ??= what.slice(0, 300);
  return undefined;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
