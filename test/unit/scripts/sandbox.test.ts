/**
 * The sandbox on its own: real QuickJS workers, a host written here. What a
 * program can do, the limits that stop it, what it cannot reach, and that a
 * run leaves nothing for the next.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import type { ProgramAnswer, ProgramHost } from "../../../src/model/program.js";
import { Sandboxes, type ProgramLimits } from "../../../src/scripts/sandbox.js";

const LIMITS: ProgramLimits = { cpuMs: 2000, returnChars: 100_000, calls: 50, logLines: 20, logLineChars: 200, argsChars: 10_000, concurrency: 4 };
const sandboxes = new Sandboxes({ workers: 2, memoryBytes: 32 << 20 });
afterAll(() => sandboxes.close());

/** A host that adds, echoes, fails or waits, and counts how many of its calls are in flight. */
function host(): ProgramHost & { calls: { op: string; toolId?: string; args: unknown }[]; most: number } {
  let active = 0;
  const state = {
    calls: [] as { op: string; toolId?: string; args: unknown }[],
    most: 0,
    async call(op: string, args: unknown, toolId: string | undefined, signal: AbortSignal): Promise<ProgramAnswer> {
      state.calls.push({ op, args, ...(toolId ? { toolId } : {}) });
      active++;
      state.most = Math.max(state.most, active);
      try {
        const a = args as { a?: number; b?: number; ms?: number };
        if (toolId === "t:wait")
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, a.ms ?? 20);
            signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
          });
        if (toolId === "t:add") return { ok: true, value: { sum: (a.a ?? 0) + (a.b ?? 0) } };
        if (toolId === "t:fail")
          return { ok: false, error: { code: "invalid_args", message: "args.a: expected number", problems: [{ field: "a" }], corrected: { a: 1 } } };
        return { ok: true, value: { op, args, toolId: toolId ?? null }, warnings: toolId === "t:warn" ? ["t:warn's result looks like instructions"] : [] };
      } finally {
        active--;
      }
    },
  };
  return state;
}

const run = (code: string, options: { input?: unknown; limits?: Partial<ProgramLimits>; host?: ProgramHost; signal?: AbortSignal } = {}) =>
  sandboxes.run({ code, input: options.input }, { ...LIMITS, ...options.limits }, options.host ?? host(), options.signal ?? new AbortController().signal);

describe("a program", () => {
  it("calls tools, several at once, and returns data", async () => {
    const h = host();
    const ran = await run("const sums = await Promise.all(input.map(([a, b]) => tools.call('t:add', { a, b })));\nreturn sums.map((s) => s.sum);", {
      input: [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      host: h,
    });
    expect(ran.outcome).toMatchObject({ ok: true, json: "[3,7,11]" });
    expect(h.calls.map((c) => c.toolId)).toEqual(["t:add", "t:add", "t:add"]);
  });

  it("holds at most `concurrency` calls in flight, the rest waiting their turn", async () => {
    const h = host();
    const ran = await run("await Promise.all(Array.from({ length: 10 }, () => tools.call('t:wait', { ms: 15 }))); return 'done';", {
      host: h,
      limits: { concurrency: 3 },
    });
    expect(ran.outcome.ok).toBe(true);
    expect(h.calls).toHaveLength(10);
    expect(h.most).toBe(3);
  });

  it("searches and describes through the host, logs, and reads the scanner's warnings", async () => {
    const h = host();
    const ran = await run(
      "await tools.search({ query: 'x' }); await tools.describe({ tool_id: 'a:b' }); await tools.call('t:warn', {}); console.log('n', 1, { a: [2] }); return tools.warnings;",
      { host: h },
    );
    expect(ran.outcome).toMatchObject({ ok: true, json: JSON.stringify(["t:warn's result looks like instructions"]) });
    expect(h.calls.map((c) => c.op)).toEqual(["search", "describe", "call"]);
    expect(ran.logs).toEqual(['n 1 {"a":[2]}']);
  });

  it("catches a tool's refusal as a ToolError with the refusal's fields", async () => {
    const ran = await run(
      "try { await tools.call('t:fail', {}); } catch (e) { return [e instanceof Error, e.name, e.code, e.message, e.corrected, e.problems]; }",
    );
    expect(JSON.parse((ran.outcome as { json: string }).json)).toEqual([
      true,
      "ToolError",
      "invalid_args",
      "args.a: expected number",
      { a: 1 },
      [{ field: "a" }],
    ]);
  });

  it("fails with the line and column of a throw, and of a syntax error", async () => {
    const thrown = await run("const a = 1;\nconst b = 2;\n  throw new TypeError('no ' + (a + b));");
    expect(thrown.outcome).toMatchObject({ ok: false, kind: "thrown", name: "TypeError", message: "no 3", line: 3 });
    const syntax = await run("return 1 +;");
    expect(syntax.outcome).toMatchObject({ ok: false, kind: "thrown", name: "SyntaxError", line: 1 });
    expect((syntax.outcome as { column?: number }).column).toBeGreaterThan(0);
  });

  it("that throws a non-Error says what it threw", async () => {
    const ran = await run("throw { reason: 'nope', n: 4 };");
    expect(ran.outcome).toMatchObject({ ok: false, kind: "thrown", message: 'the program threw {"reason":"nope","n":4}, which is not an Error' });
  });

  it("that returns a cyclic value fails saying its value cannot be made JSON", async () => {
    const ran = await run("const a = {}; a.self = a; return a;");
    expect(ran.outcome).toMatchObject({ ok: false, kind: "thrown" });
    expect((ran.outcome as { message: string }).message).toMatch(/return value cannot be made JSON/);
  });

  it("that returns more than returnChars is stopped at the limit", async () => {
    const ran = await run("return 'x'.repeat(200000);");
    expect(ran.outcome).toMatchObject({ ok: false, kind: "limit", limit: "returnChars" });
  });

  it("that waits on nothing is told so rather than hanging", async () => {
    const ran = await run("await new Promise(() => {}); return 1;");
    expect(ran.outcome).toMatchObject({ ok: false, kind: "deadlock" });
  });

  it("that passes arguments past argsChars gets an invalid_args error, and the host hears nothing of the call", async () => {
    const h = host();
    const ran = await run("try { await tools.call('t:add', { a: 'x'.repeat(4 << 20) }); } catch (e) { return [e.name, e.code, e.message]; }", {
      host: h,
      limits: { argsChars: 1 << 20 },
    });
    expect(JSON.parse((ran.outcome as { json: string }).json)).toEqual([
      "ToolError",
      "invalid_args",
      `the arguments of this call are ${(4 << 20) + 8} characters of JSON, more than the ${1 << 20} a call may carry; nothing was sent`,
    ]);
    expect(h.calls).toEqual([]);
  });

  it("that calls past maxCalls is stopped at the limit", async () => {
    const ran = await run("for (let i = 0; i < 10; i++) await tools.call('t:add', { a: i, b: 1 });", { limits: { calls: 3 } });
    expect(ran.outcome).toMatchObject({ ok: false, kind: "limit", limit: "calls" });
  });

  it("that logs a million lines keeps logLines of them and counts the rest", async () => {
    const ran = await run("for (let i = 0; i < 1000000; i++) console.log('line', i); return 'ok';");
    expect(ran.outcome).toMatchObject({ ok: true, json: '"ok"', droppedLogs: 1_000_000 - LIMITS.logLines });
    expect(ran.logs).toHaveLength(LIMITS.logLines);
  });
});

describe("the sandbox's limits", () => {
  it("stops a loop that never ends at the CPU deadline, and a catch cannot keep it", async () => {
    const ran = await run("for (;;) { try { while (true) {} } catch (e) {} }", { limits: { cpuMs: 200 } });
    expect(ran.outcome).toMatchObject({ ok: false, kind: "limit", limit: "cpuMs" });
  });

  it("stops a program that allocates without end at the memory cap", async () => {
    const ran = await run("const keep = []; for (;;) keep.push('x'.repeat(1 << 16) + keep.length);", { limits: { cpuMs: 20_000 } });
    expect(ran.outcome).toMatchObject({ ok: false, kind: "limit", limit: "memory" });
  });

  it("stops deep recursion as the program's error", async () => {
    const ran = await run("const f = (n) => f(n + 1) + 1; return f(0);");
    expect(ran.outcome).toMatchObject({ ok: false, kind: "limit", limit: "stack" });
  });

  it("stops a spinning program when its signal aborts, and the next run gets a working sandbox", async () => {
    const controller = new AbortController();
    const running = run("for (;;) {}", { signal: controller.signal, limits: { cpuMs: 60_000 } });
    setTimeout(() => controller.abort(new Error("the client cancelled")), 50);
    expect((await running).outcome).toMatchObject({ ok: false, kind: "cancelled", message: "the client cancelled" });
    expect((await run("return 40 + 2;")).outcome).toMatchObject({ ok: true, json: "42" });
  });

  it("aborts the calls in flight when the run is cancelled", async () => {
    const controller = new AbortController();
    const h = host();
    const running = run("await tools.call('t:wait', { ms: 60000 }); return 1;", { signal: controller.signal, host: h });
    while (!h.calls.length) await new Promise((resolve) => setImmediate(resolve));
    controller.abort(new Error("stop"));
    const ran = await running;
    expect(ran.outcome).toMatchObject({ ok: false, kind: "cancelled" });
    expect(ran.wallMs).toBeLessThan(30_000);
  });
});

describe("the boundary", () => {
  it("has no host: no process, require, module or globalThis of Node's", async () => {
    const ran = await run(
      "return [typeof process, typeof require, typeof module, typeof globalThis.process, typeof setTimeout, typeof fetch, typeof WebAssembly, Object.keys(globalThis).filter((k) => ['input','tools','console'].includes(k)).sort()];",
    );
    expect(JSON.parse((ran.outcome as { json: string }).json)).toEqual([
      "undefined",
      "undefined",
      "undefined",
      "undefined",
      "undefined",
      "undefined",
      "undefined",
      ["console", "input", "tools"],
    ]);
  });

  it("finds only the guest's Function through constructors: `return process` reaches nothing", async () => {
    const ran = await run(
      "const F = this?.constructor?.constructor ?? tools.call.constructor; const viaTools = tools.call.constructor('return typeof process')(); const viaInput = input.constructor.constructor('return typeof process')(); let viaThis; try { viaThis = F('return process')(); } catch (e) { viaThis = e.name; } return [viaTools, viaInput, viaThis];",
      { input: { a: 1 } },
    );
    expect(JSON.parse((ran.outcome as { json: string }).json)).toEqual(["undefined", "undefined", "ReferenceError"]);
  });

  it("takes what was passed in as plain data: prototype tricks on it change nothing outside the run", async () => {
    const tricked = await run(
      "input.__proto__.polluted = 'yes'; Object.prototype.leak = 1; JSON.parse = () => ({ lied: true }); JSON.stringify = () => '\"lied\"'; return { own: input.__proto__.x, seen: input.polluted ?? null, parsed: JSON.parse('{}') };",
      { input: JSON.parse('{"__proto__": {"x": 1}}') as unknown },
    );
    expect(tricked.outcome).toMatchObject({ ok: true, json: '{"own":1,"seen":null,"parsed":{"lied":true}}' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const next = await run("return [typeof Object.prototype.leak, typeof globalThis.polluted, JSON.stringify({ a: 1 })];");
    expect(next.outcome).toMatchObject({ ok: true, json: '["undefined","undefined","{\\"a\\":1}"]' });
  });

  it("keeps nothing between runs", async () => {
    await run("globalThis.kept = 'secret'; return 1;");
    const ran = await run("return typeof globalThis.kept;");
    expect(ran.outcome).toMatchObject({ ok: true, json: '"undefined"' });
  });
});

describe("the workers' share", () => {
  it("gives one owner at most perOwner workers: another owner's run goes first, its own next waits for its first", async () => {
    const shared = new Sandboxes({ workers: 2, memoryBytes: 32 << 20, perOwner: 1 });
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    // Each run's one call waits until the test lets it end, so who holds a worker is the test's to say.
    const gated: ProgramHost = {
      call: async (_op, args) => {
        const who = (args as { who: string }).who;
        order.push(who);
        await new Promise<void>((resolve) => gates.set(who, resolve));
        return { ok: true, value: null };
      },
    };
    const start = (who: string, owner: string) =>
      shared.run({ code: `await tools.call("t:gate", { who: input }); return input;`, input: who }, LIMITS, gated, new AbortController().signal, owner);
    try {
      const a1 = start("a1", "A");
      const a2 = start("a2", "A");
      const b1 = start("b1", "B");
      // Two workers: A's first and B's run hold them (in either order), A's second waits.
      await vi.waitFor(() => expect([...order].sort()).toEqual(["a1", "b1"]));
      gates.get("a1")!();
      expect((await a1).outcome).toMatchObject({ ok: true });
      await vi.waitFor(() => expect(order).toContain("a2"));
      expect(order.indexOf("a2")).toBe(2);
      gates.get("b1")!();
      gates.get("a2")!();
      expect((await b1).outcome).toMatchObject({ ok: true, json: '"b1"' });
      expect((await a2).outcome).toMatchObject({ ok: true, json: '"a2"' });
    } finally {
      await shared.close();
    }
  });
});
