/**
 * Acceptance: bad input never crashes or dead-ends.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpBackend, type HttpBackend } from "../fixtures/http-backend.js";
import { openSession, type Session } from "../helpers/harness.js";

let http: HttpBackend;
let session: Session;

beforeAll(async () => {
  http = await startHttpBackend();
  session = await openSession({
    mcpServers: {
      weather: { type: "http", url: http.url },
      broken: { command: "metatools-no-such-command-xyz", args: ["--flag"] },
    },
  });
});

afterAll(async () => {
  await session?.close();
  await http?.close();
});

describe("unknown ids", () => {
  it("answers a typo with the nearest ids and a ready call that works", async () => {
    const { text, isError } = await session.raw("run_tool", { tool_id: "weather:wether_forecast", args: { city: "Oslo" } });
    expect(isError).toBe(false);
    const body = JSON.parse(text);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe("unknown_tool");
    expect(body.did_you_mean[0]).toBe("weather:weather_forecast");
    expect(body.next).toEqual({ tool: "run_tool", arguments: { tool_id: "weather:weather_forecast", args: { city: "Oslo" } } });
    const followed = await session.call(body.next.tool, body.next.arguments);
    expect(followed.ok).toBe(true);
  });

  it("finds a tool whose namespace was left out", async () => {
    const body = await session.call("describe_tool", { tool_id: "weather_forecast" });
    expect(body.did_you_mean).toContain("weather:weather_forecast");
    expect(body.next.tool).toBe("describe_tool");
  });

  it("suggests a namespace for an unknown namespace filter", async () => {
    const body = await session.call("search_tools", { query: "forecast", namespace: "wether" });
    expect(body.total).toBe(0);
    expect(body.warning).toContain('"weather"');
    expect(body.next).toEqual({ tool: "search_tools", arguments: { query: "forecast", namespace: "weather" } });
  });
});

describe("invalid arguments", () => {
  it.each([
    [{ days: 2 }, "args.city", "required"],
    [{ city: "Rome", days: "3" }, "args.days", "integer"],
    [{ city: "Rome", days: 30 }, "args.days", "<= 7"],
    [{ city: "Rome", colour: "red" }, "args.colour", "remove"],
  ])("rejects %j without calling the backend, naming %s", async (args, field, expected) => {
    const before = http.calls.length;
    const body = await session.call("run_tool", { tool_id: "weather:weather_forecast", args });
    expect(http.calls.length).toBe(before);
    expect(body.ok).toBe(false);
    expect(body.error.code).toBe("invalid_args");
    const problem = body.problems.find((p: { field: string }) => p.field === field);
    expect(problem.expected).toContain(expected);
    expect(body.hint).toContain("weather:weather_forecast");
    // A value only the caller knows (the city) is asked for, never made up: no next call that would fail again.
    if (field === "args.city") {
      expect(body.next).toBeUndefined();
      expect(body.hint).toContain('Supply "city" (required; its value cannot be guessed');
      expect(JSON.stringify(body)).not.toMatch(/<city>|<placeholder>/);
    } else expect(body.next.tool).toBe("run_tool");
  });

  it("gives a corrected example that the backend accepts", async () => {
    const body = await session.call("run_tool", { tool_id: "weather:weather_forecast", args: { city: "Rome", days: "3", extra: 1 } });
    expect(body.next.arguments.args).toEqual({ city: "Rome", days: 3 });
    const followed = await session.call(body.next.tool, body.next.arguments);
    expect(followed).toMatchObject({ ok: true, result: "Forecast for Rome: sunny for 3 day(s)" });
  });

  it("validates the meta-tools' own arguments with the same guidance", async () => {
    const { text, isError } = await session.raw("search_tools", { query: "x", limit: 500 });
    expect(isError).toBe(false);
    const body = JSON.parse(text);
    expect(body.error.code).toBe("invalid_args");
    expect(body.problems[0].field).toBe("args.limit");
    expect(body.next.arguments.limit).toBe(50);
  });
});

describe("a backend that cannot start", () => {
  it("does not stop the others, and its error names it", async () => {
    const state = session.app.backends.state("broken");
    expect(state?.status).not.toBe("ready");
    expect(state?.error).toContain("broken");
    expect(state?.error).toContain("metatools-no-such-command-xyz");
    expect(session.app.backends.state("weather")?.status).toBe("ready");
    const body = await session.call("search_tools", { query: "forecast" });
    expect(body.hits[0].id).toBe("weather:weather_forecast");
    // This session was told of it in its first search (once per session); a search scoped to it says why it has no tools.
    const scoped = await session.call("search_tools", { query: "forecast", namespace: "broken" });
    expect(scoped.warning).toMatch(/^Namespace "broken" has no tools now: its backend is failed; a person must install metatools-no-such-command-xyz/);
  });
});

describe("large results", () => {
  it("become a handle with a summary and a next call that reads them in slices", async () => {
    const { text } = await session.raw("run_tool", { tool_id: "weather:big_report", args: { lines: 2000 } });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000);
    const body = JSON.parse(text);
    expect(body.ok).toBe(true);
    expect(body.handle).toMatch(/^@out_/);
    expect(body.summary.lines).toBe(2000);
    expect(body.summary.head.startsWith("line 1:")).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(body.summary))).toBeLessThanOrEqual(2000);

    // The reply's own next call, executed literally, returns the first slice.
    const first = await session.call(body.next.tool, body.next.arguments);
    expect(first.ok).toBe(true);
    expect(first.structured.content.startsWith("line 1:")).toBe(true);
    const end = first.structured.end_line;
    expect(end).toBeGreaterThan(10);
    // …and its own next continues exactly after it.
    const second = await session.call(first.next.tool, first.next.arguments);
    expect(second.structured.start_line).toBe(end + 1);
    expect(second.structured.content.startsWith(`line ${end + 1}:`)).toBe(true);

    const grep = await session.call("run_tool", { tool_id: "metatools:read_output", args: { handle: body.handle, grep: "^line 1999:" } });
    expect(grep.structured).toMatchObject({ total: 1, matches: [expect.stringMatching(/^1999: line 1999:/)] });
  });

  it("an unknown handle gets guidance, not a fault", async () => {
    const { text, isError } = await session.raw("run_tool", { tool_id: "metatools:read_output", args: { handle: "@out_doesnotexist00" } });
    expect(isError).toBe(false);
    const body = JSON.parse(text);
    expect(body).toMatchObject({ ok: false, error: { code: "unknown_handle" } });
    expect(body.hint).toMatch(/again/);
  });
});

describe("hostile argument shapes", () => {
  it("refuses __proto__ and object-valued constructor keys, and no prototype is touched", async () => {
    const polluting = JSON.parse('{"city": "Oslo", "__proto__": {"polluted": "yes"}}');
    const refused = JSON.parse((await session.raw("run_tool", { tool_id: "weather:weather_forecast", args: polluting })).text);
    expect(refused.error.code).toBe("invalid_args");
    expect(refused.error.message).toContain('args.args.__proto__: the key "__proto__" is not accepted');
    const constructor = JSON.parse(
      (
        await session.raw("run_tool", {
          tool_id: "weather:weather_forecast",
          args: JSON.parse('{"city": "Oslo", "x": {"constructor": {"prototype": {"polluted": "yes"}}}}'),
        })
      ).text,
    );
    expect(constructor.error.message).toContain('args.args.x.constructor: the key "constructor" is not accepted');
    // At the top level the protocol layer drops the key before metatools sees it: the call runs as if it were absent.
    const top = JSON.parse((await session.raw("search_tools", JSON.parse('{"query": "weather", "__proto__": {"polluted": "yes", "limit": 1}}'))).text);
    expect(top.hits.length).toBeGreaterThan(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses arguments nested too deep or too large, naming where, and keeps serving", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const tooDeep = JSON.parse((await session.raw("run_tool", { tool_id: "weather:weather_forecast", args: { city: "Oslo", deep } })).text);
    expect(tooDeep.error.message).toMatch(/nested deeper than 32 levels/);
    const tooBig = JSON.parse((await session.raw("run_tool", { tool_id: "weather:weather_forecast", args: { city: "x".repeat(2 << 20) } })).text);
    expect(tooBig.error.message).toMatch(/larger than 1048576 bytes/);
    // A refusal quotes the path; a 20,000-character key in it still makes a reply within the budget.
    const longKey = await session.raw("run_tool", { tool_id: "weather:weather_forecast", args: { city: "Oslo", ["k".repeat(20_000)]: deep } });
    expect(Buffer.byteLength(longKey.text)).toBeLessThanOrEqual(10_000);
    expect(JSON.parse(longKey.text).problems[0].expected).toBe("nested deeper than 32 levels");
    const fine = JSON.parse((await session.raw("search_tools", { query: "weather" })).text);
    expect(fine.hits.length).toBeGreaterThan(0);
  });
});
