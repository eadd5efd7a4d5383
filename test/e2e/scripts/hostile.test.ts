/**
 * Hostile programs through `serve` over HTTP, with the public everything
 * server: each ends with a clear reply, the server keeps serving, and while
 * one spins, another caller's search answers before it ends.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servers, tempDir } from "../../helpers/harness.js";
import { httpClientTransport, startHttp, TEST_TOKEN, type HttpChild } from "../../helpers/serve.js";

const OTHER_TOKEN = "other-token-0123456789abcdef";
const CPU_MS = 3000;

type Body = Record<string, any>;

let server: HttpChild;
const clients: Client[] = [];

beforeAll(async () => {
  const dir = tempDir();
  const config = join(dir, "metatools.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { everything: servers.everything() },
      metatools: { code: { enabled: false }, scripts: { cpuMs: CPU_MS }, http: { tokens: [OTHER_TOKEN] } },
    }),
  );
  server = await startHttp(["--config", config]);
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await server?.stop();
});

async function caller(token = TEST_TOKEN) {
  const client = new Client({ name: "hostile-program", version: "1" });
  await client.connect(httpClientTransport(server.url, token));
  clients.push(client);
  return async (tool: string, args: Record<string, unknown>): Promise<Body> => {
    const reply = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 });
    return JSON.parse((reply.content as { text: string }[])[0]!.text) as Body;
  };
}

const program = (call: Awaited<ReturnType<typeof caller>>, code: string, input?: unknown) =>
  call("run_tool", { tool_id: "metatools:run_program", args: { code, ...(input === undefined ? {} : { input }) } });

describe("hostile programs", () => {
  it("a program that loops forever is stopped at the CPU deadline, naming the calls it made; another caller's search answers meanwhile", async () => {
    const spinner = await caller();
    const other = await caller(OTHER_TOKEN);
    const order: string[] = [];
    const spinning = program(spinner, `await tools.call("everything:echo", { message: "before" }); for (;;) {}`).then((body) => {
      order.push("program");
      return body;
    });
    // The other caller searches while the program spins: its answer comes first.
    const found = await other("search_tools", { query: "echo a message back" });
    order.push("search");
    expect(found.hits.length).toBeGreaterThan(0);
    const stopped = await spinning;
    expect(order).toEqual(["search", "program"]);
    expect(stopped).toMatchObject({
      ok: false,
      error: { code: "program_limit", message: expect.stringContaining(`more than the ${CPU_MS} ms a run may`) },
      program: { limit: "cpuMs", setting: "metatools.scripts.cpuMs", trace: [{ call: "everything:echo", ok: true }] },
    });
  }, 60_000);

  it("one that allocates without end is stopped at the memory cap", async () => {
    const call = await caller();
    const ran = await program(call, `const keep = []; for (;;) keep.push("x".repeat(1 << 16) + keep.length);`);
    expect(ran).toMatchObject({ ok: false, error: { code: "program_limit" }, program: { limit: "memory", setting: "metatools.scripts.memoryMb" } });
  }, 60_000);

  it("one that recurses deeply is stopped at its own stack limit", async () => {
    const call = await caller();
    const ran = await program(call, `const f = (n) => f(n + 1) + 1; return f(0);`);
    expect(ran).toMatchObject({
      ok: false,
      error: { code: "program_limit", message: expect.stringContaining("recursed too deep") },
      program: { limit: "stack" },
    });
  }, 30_000);

  it("one that throws a non-Error, or returns a cyclic or huge value, says so", async () => {
    const call = await caller();
    expect(await program(call, `throw { reason: "mine" };`)).toMatchObject({
      ok: false,
      error: { code: "program_error", message: expect.stringContaining('{"reason":"mine"}') },
    });
    const cyclic = await program(call, `const a = {}; a.self = a; return a;`);
    expect(cyclic).toMatchObject({ ok: false, error: { code: "program_error", message: expect.stringMatching(/cyclic|circular/i) } });
    const huge = await program(call, `return "y".repeat(2000000);`);
    expect(huge).toMatchObject({ ok: false, error: { code: "program_limit" }, program: { limit: "returnChars", setting: "metatools.scripts.returnChars" } });
  }, 30_000);

  it("a large value it may return comes back as a handle with the exact next call, not truncated", async () => {
    const call = await caller();
    const ran = await program(call, `return Array.from({ length: 4000 }, (_, i) => "row " + i);`);
    expect(ran.ok).not.toBe(false);
    expect(ran.handle).toMatch(/^@out_/);
    expect(ran.next).toMatchObject({ tool: "run_tool", arguments: { tool_id: "metatools:read_output" } });
    const page = await call(ran.next.tool, ran.next.arguments);
    expect(JSON.stringify(page)).toContain("row 0");
  }, 30_000);

  it("one that logs a million lines keeps logLines of them and counts the rest", async () => {
    const call = await caller();
    const ran = await program(call, `for (let i = 0; i < 1000000; i++) console.log("line", i); return "logged";`);
    expect(ran.structured.result).toBe("logged");
    expect(ran.structured.program.logs).toHaveLength(200);
    expect(ran.structured.program.logs_dropped).toBe(1000000 - 200);
  }, 60_000);

  it("one that reaches for the host finds nothing of it", async () => {
    const call = await caller();
    const ran = await program(
      call,
      `const found = {};
for (const [name, get] of Object.entries({
  process: () => this.constructor.constructor("return process")(),
  require: () => this.constructor.constructor("return require")(),
  viaInput: () => input.constructor.constructor("return typeof process")(),
  global: () => typeof globalThis.process + typeof globalThis.require + typeof globalThis.Buffer,
})) { try { found[name] = String(get()); } catch (e) { found[name] = e.name; } }
input.__proto__.polluted = true;
Object.prototype.leak = "mine";
return found;`,
      { a: 1 },
    );
    expect(ran.structured.result).toEqual({
      process: "ReferenceError",
      require: "ReferenceError",
      viaInput: "undefined",
      global: "undefinedundefinedundefined",
    });
    // What the program changed of its own prototypes stayed in its run.
    expect(await program(call, `return [({}).leak, ({}).polluted, typeof tools.call];`)).toMatchObject({ structured: { result: [null, null, "function"] } });
  }, 30_000);

  it("a 20 MB string as an argument is refused in the program, and nothing reaches the tool", async () => {
    const call = await caller();
    const ran = await program(
      call,
      `try { await tools.call("everything:echo", { message: "z".repeat(20 << 20) }); return "sent"; } catch (e) { return [e.name, e.code ?? null, e.message]; }`,
    );
    const [name, code, message] = ran.structured.result as [string, string | null, string];
    expect(name === "ToolError" ? code : name).toMatch(/^(invalid_args|InternalError)$/);
    expect(message).toMatch(/more than the \d+ a call may carry|out of memory/);
    expect(ran.structured.program.trace).toEqual([]);
  }, 60_000);

  it("leaves the server serving every caller", async () => {
    const call = await caller(OTHER_TOKEN);
    expect(await program(call, `return (await tools.call("everything:echo", { message: "still here" }));`)).toMatchObject({ ok: true });
  }, 30_000);
});
