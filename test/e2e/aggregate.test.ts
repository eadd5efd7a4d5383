/**
 * Acceptance: a real MCP client sees exactly three tools over server-everything
 * (stdio), server-filesystem (stdio) and a Streamable HTTP backend; search,
 * describe and run reach all three.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpBackend, type HttpBackend } from "../fixtures/http-backend.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

let http: HttpBackend;
let session: Session;
let dir: string;

beforeAll(async () => {
  http = await startHttpBackend();
  dir = tempDir();
  writeFileSync(join(dir, "notes.txt"), "alpha\nbeta\ngamma\n");
  session = await openSession({
    mcpServers: {
      everything: servers.everything(),
      fs: servers.filesystem(dir),
      weather: { type: "http", url: http.url },
    },
  });
});

afterAll(async () => {
  await session?.close();
  await http?.close();
});

describe("three tools over many backends", () => {
  it("lists exactly search_tools, describe_tool and run_tool, each with a short description; what an agent must fill in is described", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["describe_tool", "run_tool", "search_tools"]);
    for (const tool of tools) expect(tool.description!.length).toBeLessThanOrEqual(200);
    const described = (name: string, prop: string) =>
      (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { description?: string }>)[prop]?.description;
    // The values only an agent supplies say what they are; the rest explain themselves by name, type and enum.
    for (const [name, prop] of [
      ["search_tools", "query"],
      ["describe_tool", "tool_id"],
      ["run_tool", "tool_id"],
      ["run_tool", "args"],
    ] as const)
      expect(described(name, prop)).toBeTruthy();
  });

  it("connects every backend", () => {
    const states = session.app.backends.states();
    expect(states.map((s) => [s.namespace, s.status]).sort()).toEqual([
      ["code", "ready"],
      ["everything", "ready"],
      ["fs", "ready"],
      ["metatools", "ready"],
      ["weather", "ready"],
    ]);
  });

  it("teaches the loop and lists namespaces with counts in the instructions", () => {
    const text = session.client.getInstructions() ?? "";
    expect(text).toMatch(/search_tools/);
    expect(text).toMatch(/describe_tool/);
    expect(text).toMatch(/weather \(\d+\)/);
    expect(text).toMatch(/fs \(\d+\)/);
    // A few words for each, from its tools' names.
    expect(text).toMatch(/fs \(\d+\): [a-z, ]*\bfile\b/);
  });

  it.each([
    ["echo back a message", "everything:echo"],
    ["read a text file", "fs:read_text_file"],
    ["weather forecast for a city", "weather:weather_forecast"],
  ])("search %j finds %s in the top 3", async (query, id) => {
    const body = await session.call("search_tools", { query });
    expect(body.hits.slice(0, 3).map((h: { id: string }) => h.id)).toContain(id);
    const hit = body.hits.find((h: { id: string }) => h.id === id);
    expect(hit.summary.length).toBeGreaterThan(0);
    expect(hit.call).toMatch(/\(/);
  });

  it("describes schemas from every backend", async () => {
    const body = await session.call("describe_tool", { tool_ids: ["everything:echo", "fs:read_text_file", "weather:weather_forecast"] });
    expect(body.tools).toHaveLength(3);
    const weather = body.tools.find((t: { id: string }) => t.id === "weather:weather_forecast");
    expect(weather.input_schema.properties.city.type).toBe("string");
    expect(weather.input_schema?.required).toEqual(["city"]);
    const read = body.tools.find((t: { id: string }) => t.id === "fs:read_text_file");
    expect(read.input_schema?.required).toContain("path");
  });

  it("runs tools on every backend", async () => {
    const echo = await session.call("run_tool", { tool_id: "everything:echo", args: { message: "hello metatools" } });
    expect(echo.ok).toBe(true);
    expect(echo.result).toContain("hello metatools");

    const read = await session.call("run_tool", { tool_id: "fs:read_text_file", args: { path: join(dir, "notes.txt") } });
    expect(read.ok).toBe(true);
    expect(JSON.stringify(read)).toContain("beta");

    const weather = await session.call("run_tool", { tool_id: "weather:weather_forecast", args: { city: "Paris", days: 2 } });
    expect(weather).toMatchObject({ ok: true, result: "Forecast for Paris: sunny for 2 day(s)" });
  });

  it("filters by namespace and reports the distribution over the full match set", async () => {
    const all = await session.call("search_tools", { query: "file", limit: 1 });
    const fsCount = all.by_namespace.find((n: { namespace: string }) => n.namespace === "fs").count;
    const scoped = await session.call("search_tools", { query: "file", namespace: "fs", limit: 50 });
    expect(scoped.total).toBe(fsCount);
    expect(scoped.hits.every((h: { id: string }) => h.id.startsWith("fs:"))).toBe(true);
    expect(all.by_namespace.reduce((sum: number, n: { count: number }) => sum + n.count, 0)).toBe(all.total);
  });

  it("merges the shipped catalog into search and describe", async () => {
    const body = await session.call("describe_tool", { tool_id: "fs:read_text_file", detail_level: "full" });
    expect(typeof body.notes).toBe("string");
    expect(body.examples.length).toBeGreaterThan(0);
    expect(body.examples[0].call.tool_id).toBe("fs:read_text_file");
    expect(body.catalog).toBeUndefined();
  });
});
