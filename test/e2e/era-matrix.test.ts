/**
 * The protocol-era matrix through real processes: {an SDK 1.x client, an
 * SDK v2 client pinned to 2026-07-28, an SDK v2 client in `auto`} ×
 * {metatools served over stdio, over Streamable HTTP}, each against a 2025
 * backend (the public everything server) and a 2026-07-28-only one (the
 * fixture built on the v2 server package, which refuses `initialize`).
 * Each combination searches, describes and runs; gets both backends'
 * questions in its own era's form (a pushed `elicitation/create` for a 2025
 * client, an `input_required` result its SDK answers for a 2026-07-28 one)
 * and their answers reach the backends; gets a task-only tool's result as
 * a plain one; sees progress; and a call it cancels stops the backend's
 * work (the backend says so).
 */
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "../helpers/cli.js";
import { eventually } from "../helpers/eventually.js";
import { testHomes } from "../helpers/harness.js";
import { httpServe, startEraServer, stdioServe } from "../helpers/modern.js";
import { httpClientTransport, type HttpChild } from "../helpers/serve.js";

type ClientKind = "v1" | "v2-pinned" | "v2-auto";
type Served = "stdio" | "http";
type Progress = { progress: number };
type Asked = { message: string; id: string | number };

/** One client, whatever its SDK: call a tool (with progress and a signal), answer questions, say its era. */
interface Driver {
  call(name: string, args: Record<string, unknown>, options?: { onprogress?: (p: Progress) => void; signal?: AbortSignal }): Promise<unknown>;
  /** Every question asked so far, with the id of the request (2025) or of the input request (2026-07-28) it came as. */
  asked: Asked[];
  era(): string | undefined;
  close(): Promise<void>;
}

let server: HttpChild;
let config: string;
let abortedLines: () => number;

beforeAll(async () => {
  ({ server, config, abortedLines } = await startEraServer());
}, 30_000);

afterAll(() => server?.stop());

const ANSWER = { name: "Ada Lovelace", check: true, email: "ada@example.com", confirm: true };
const env = () => ({ ...getDefaultEnvironment(), ...testHomes() });

async function connect(kind: ClientKind, served: Served): Promise<Driver> {
  const asked: Asked[] = [];
  if (kind === "v1") {
    const client = new Client({ name: "v1", version: "1" }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
      asked.push({ message: request.params.message, id: extra.requestId });
      return { action: "accept", content: ANSWER };
    });
    await client.connect(
      served === "http"
        ? httpClientTransport(server.url)
        : new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "--config", config], env: env(), stderr: "ignore" }),
    );
    return {
      asked,
      call: (name, args, options = {}) => client.callTool({ name, arguments: args }, undefined, { ...options, timeout: 60_000 }),
      era: () => "legacy",
      close: () => client.close(),
    };
  }
  const client = new ClientV2(
    { name: kind, version: "1" },
    { versionNegotiation: { mode: kind === "v2-auto" ? "auto" : { pin: "2026-07-28" } }, capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler("elicitation/create", async (request, ctx) => {
    asked.push({ message: (request.params as { message: string }).message, id: ctx.mcpReq.id });
    return { action: "accept" as const, content: ANSWER };
  });
  await client.connect(served === "http" ? httpServe(server.url) : stdioServe(config));
  return {
    asked,
    call: (name, args, options = {}) => client.callTool({ name, arguments: args }, { ...options, timeout: 60_000 }),
    era: () => client.getProtocolEra(),
    close: () => client.close(),
  };
}

const textOf = (result: unknown): string => ((result as { content: { text?: string }[] }).content[0]?.text ?? "") as string;
const body = (result: unknown) => JSON.parse(textOf(result)) as Record<string, unknown>;

describe.each<[ClientKind, Served]>([
  ["v1", "stdio"],
  ["v1", "http"],
  ["v2-pinned", "stdio"],
  ["v2-pinned", "http"],
  ["v2-auto", "stdio"],
  ["v2-auto", "http"],
])("a %s client, metatools over %s", (kind, served) => {
  let driver: Driver;
  const modernClient = kind !== "v1";

  beforeAll(async () => {
    driver = await connect(kind, served);
  }, 30_000);
  afterAll(() => driver?.close());

  it("speaks its own era with metatools", () => {
    expect(driver.era()).toBe(modernClient ? "modern" : "legacy");
  });

  it("searches, describes and runs the tools of both backends", async () => {
    const found = body(await driver.call("search_tools", { query: "echo back a message", limit: 10 }));
    const ids = (found.hits as { id: string }[]).map((h) => h.id);
    expect(ids).toEqual(expect.arrayContaining(["everything:echo", "modern:echo"]));
    const described = body(await driver.call("describe_tool", { tool_id: "modern:echo" }));
    expect(described.id).toBe("modern:echo");
    expect(textOf(await driver.call("run_tool", { tool_id: "everything:echo", args: { message: `old backend, ${kind}` } }))).toContain(`old backend, ${kind}`);
    expect(textOf(await driver.call("run_tool", { tool_id: "modern:echo", args: { text: `new backend, ${kind}` } }))).toContain(`new backend, ${kind}`);
  });

  it.each(["modern:ask", "everything:trigger-elicitation-request"])(
    "gets %s's question in its era's form, and the answer reaches the backend",
    async (tool) => {
      const before = driver.asked.length;
      const result = await driver.call("run_tool", { tool_id: tool, args: tool === "modern:ask" ? { env: "prod" } : {} });
      const asked = driver.asked.slice(before);
      expect(asked).toHaveLength(1);
      expect(asked[0]!.message).toMatch(new RegExp(`^\\[${tool.split(":")[0]}\\] `));
      // A 2025 client is sent a request (a numeric JSON-RPC id); a 2026-07-28 client's SDK answers an input request by its key.
      if (modernClient) expect(asked[0]!.id).toBe("question");
      else expect(typeof asked[0]!.id).toBe("number");
      expect(textOf(result)).toMatch(tool === "modern:ask" ? /deployed to prod/ : /Ada Lovelace/);
    },
  );

  it("gets a 2025 backend's task-only tool as a plain result (metatools waits on the task)", async () => {
    const result = await driver.call("run_tool", { tool_id: "everything:simulate-research-query", args: { topic: `tides, ${kind}` } });
    expect(textOf(result)).toContain(`Research Report: tides, ${kind}`);
  }, 30_000);

  it("gets a 2026-07-28 backend's task as a plain result (metatools follows the task)", async () => {
    const result = await driver.call("run_tool", { tool_id: "modern:report", args: { topic: `ebb, ${kind}` } });
    expect(textOf(result)).toContain(`report on ebb, ${kind} (as a task)`);
  }, 30_000);

  it("sees progress, and a call it cancels stops the backend's work", async () => {
    const before = abortedLines();
    const controller = new AbortController();
    const steps: number[] = [];
    const outcome = await driver
      .call(
        "run_tool",
        { tool_id: "modern:slow", args: { steps: 200, delayMs: 100 } },
        {
          signal: controller.signal,
          onprogress: ({ progress }) => {
            steps.push(progress);
            if (steps.length === 2) controller.abort(new Error("the user went away"));
          },
        },
      )
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Error);
    expect(steps.length).toBeGreaterThanOrEqual(2);
    await eventually(abortedLines, (lines) => lines > before, 10_000);
  }, 30_000);
});
