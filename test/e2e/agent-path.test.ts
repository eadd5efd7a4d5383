/**
 * The agent's path, as users reproduced it: a result is sent once, not as
 * text and again as structured content; every `next` runs as written (no
 * placeholders; the harness also executes every `next` any test receives);
 * what a model meant is recovered where it is unambiguous; guidance is
 * always at the reply's top level.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonBytes } from "../../src/disclosure/budget.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI } from "../helpers/cli.js";
import { openSession, servers, tempDir, type Session, testHomes } from "../helpers/harness.js";
import { eventually } from "../helpers/eventually.js";

let session: Session;
let dir: string;

beforeAll(async () => {
  dir = tempDir();
  mkdirSync(join(dir, "many"));
  // About 6.8 KB of listing: under the 10 KB budget once, over it twice.
  for (let i = 0; i < 230; i++) writeFileSync(join(dir, "many", `report-${String(i).padStart(4, "0")}.txt`), "x");
  writeFileSync(join(dir, "README.md"), "# hello\n");
  session = await openSession({ mcpServers: { files: servers.filesystem(dir), everything: servers.everything() }, metatools: { code: { root: dir } } });
});
afterAll(() => session?.close());

describe("a result is sent once", () => {
  it("server-filesystem's text and its structured copy come back as one, inline under the budget", async () => {
    const { text } = await session.raw("run_tool", { tool_id: "files:list_directory", args: { path: join(dir, "many") } });
    const body = JSON.parse(text);
    expect(body.ok).toBe(true);
    expect(body.handle).toBeUndefined();
    expect("result" in body && "structured" in body).toBe(false);
    const listing = JSON.stringify(body.structured ?? body.result);
    expect(listing).toContain("report-0229.txt");
    expect(listing.split("report-0007.txt").length).toBe(2);
    expect(Buffer.byteLength(text)).toBeLessThan(10_000);
  });
});

describe("every next call runs as written", () => {
  it("run_tool without a tool id: no made-up id, a hint that says how to find one", async () => {
    const body = await session.call("run_tool", { args: { path: "x" } });
    expect(body).toMatchObject({ ok: false, error: { code: "invalid_args" } });
    expect(body.next).toBeUndefined();
    expect(body.hint).toContain("find it with search_tools");
    expect(JSON.stringify(body)).not.toMatch(/<tool_id>|<[a-z_]+>/);
  });

  it("args sent as a JSON string are read as the object they spell", async () => {
    const body = await session.call("run_tool", { tool_id: "files:read_text_file", args: JSON.stringify({ path: join(dir, "README.md") }) });
    expect(body).toMatchObject({ ok: true });
    expect(JSON.stringify(body)).toContain("# hello");
  });

  it("an unknown field whose value fits the one missing required field is moved there, value and all", async () => {
    const body = await session.call("run_tool", { tool_id: "files:read_text_file", args: { file: join(dir, "README.md") } });
    expect(body.error.code).toBe("invalid_args");
    expect(body.next.arguments.args).toEqual({ path: join(dir, "README.md") });
    const followed = await session.call(body.next.tool, body.next.arguments);
    expect(JSON.stringify(followed)).toContain("# hello");
  });

  it("after 'path outside allowed directories', next lists the allowed directories", async () => {
    const body = await session.call("run_tool", { tool_id: "files:list_directory", args: { path: "/etc" } });
    expect(body.ok).toBe(false);
    expect(body.next).toEqual({ tool: "run_tool", arguments: { tool_id: "files:list_allowed_directories", args: {} } });
    const followed = await session.call(body.next.tool, body.next.arguments);
    expect(followed.ok).toBe(true);
    expect(JSON.stringify(followed)).toContain(dir.split("/").pop()!);
  });

  it("a search showing one hit suggests a call that shows something new, not the same hit again", async () => {
    const first = await session.call("search_tools", { query: "read a file", limit: 1 });
    expect(first.total).toBeGreaterThan(1);
    const followed = await session.call(first.next.tool, first.next.arguments);
    expect(followed.hits[0].id).not.toBe(first.hits[0].id);
  });

  it("a did-you-mean keeps the arguments only when they fit the tool it names", async () => {
    const body = await session.call("run_tool", { tool_id: "files:read_text_fil", args: { nothing: 1 } });
    expect(body.error.code).toBe("unknown_tool");
    expect(body.next).toEqual({ tool: "describe_tool", arguments: { tool_id: "files:read_text_file" } });
  });
});

describe("guidance sits at the top level of every reply", () => {
  it("read_output's and the code tools' hint and next are lifted out of their structured content", async () => {
    const big = await session.call("run_tool", { tool_id: "code:grep", args: { pattern: "x", path: "many" } });
    expect(big.next).toBeDefined();
    expect(big.structured.overflow.next).toBeUndefined();
    expect(big.structured.overflow.hint).toBeUndefined();
    expect(big.hint).toMatch(/run_tool/);

    const stored = await session.call("run_tool", { tool_id: "files:directory_tree", args: { path: dir } });
    expect(stored.handle).toMatch(/^@out_/);
    const slice = await session.call(stored.next.tool, stored.next.arguments);
    expect(slice.ok).toBe(true);
    expect(slice.structured.hint ?? slice.structured.next).toBeUndefined();
    expect(slice.next.arguments.tool_id).toBe("metatools:read_output");
    expect(jsonBytes(slice)).toBeLessThanOrEqual(10_000);
  });
});

describe("logs", () => {
  it("a server announcing a tool-list change at start, with nothing changed, is not logged as a change", async () => {
    const dir2 = tempDir();
    const config = join(dir2, "metatools.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: servers.everything() }, metatools: { code: { enabled: false } } }));
    let stderr = "";
    const client = new Client({ name: "log-test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config, "--log-level", "debug"],
      env: { ...getDefaultEnvironment(), ...testHomes() },
      stderr: "pipe",
    });
    transport.stderr?.on("data", (d: Buffer) => (stderr += d));
    await client.connect(transport);
    // server-everything announces a list change once, as it initializes (registering its conditional tools), so before
    // its first tools/list answer; the backend client debounces it 50 ms (src/backends/mcp.ts) and the manager lists
    // again and compares. The unchanged re-list says so at debug: wait for that line, then nothing else may have said
    // "changed".
    await eventually(
      () => stderr,
      (text) => /everything: tool list announced as changed, and unchanged/.test(text),
      15_000,
    );
    await client.close();
    expect(stderr).toMatch(/everything: ready with \d+ tools/);
    expect(stderr).not.toContain("tool list changed");
  }, 20_000);
});
