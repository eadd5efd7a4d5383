/**
 * The catalog is data, tested as data: every shipped file parses against the
 * schema, documents only tools the real servers have, and its examples are
 * valid calls of those tools.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_CATALOG_DIR } from "../../src/app.js";
import { loadCatalogFile, loadCatalogs } from "../../src/catalog/load.js";
import { SchemaValidator } from "../../src/exec/validator.js";
import { ConfigError } from "../../src/util/errors.js";
import { openSession, servers, tempDir, type Session } from "../helpers/harness.js";

describe("shipped catalog schema", () => {
  it("the catalog JSON Schema accepts every shipped catalog file", async () => {
    const { parse } = await import("yaml");
    const schema = JSON.parse(readFileSync(join(BUILTIN_CATALOG_DIR, "catalog.schema.json"), "utf8"));
    const validator = new SchemaValidator();
    const files = readdirSync(BUILTIN_CATALOG_DIR).filter((f) => f.endsWith(".yaml"));
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) expect(validator.validate(schema, parse(readFileSync(join(BUILTIN_CATALOG_DIR, file), "utf8"))), file).toEqual({ ok: true });
  });

  // The Python reference servers are not on npm: their files are written from the servers' public source and cannot be checked
  // against a running server here (the describe below), so none claims a definition it was written for.
  it.each([
    ["server-git.yaml", "mcp-git", 12],
    ["server-time.yaml", "mcp-time", 2],
    ["server-fetch.yaml", "mcp-fetch", 1],
    ["server-sqlite.yaml", "sqlite", 6],
  ])("%s applies to servers named %s, one entry per tool (%i), none claiming a checked definition", (file, server, tools) => {
    const entries = loadCatalogFile(join(BUILTIN_CATALOG_DIR, file));
    expect(entries).toHaveLength(tools);
    expect(new Set(entries.map((e) => e.match)).size).toBe(tools);
    for (const entry of entries) {
      expect(entry.server).toBe(server);
      expect(entry.written_for).toBeUndefined();
      expect(entry.summary).toBeTruthy();
    }
  });
});

describe("malformed catalog files", () => {
  it.each([
    ["tools: [{ match: x, sumary: typo }]", "tools[0]", /unknown field\(s\) "sumary"/],
    ["tools: [{ summary: no match }]", "tools[0].match", /expected string/],
    ["tools: [{ match: x, examples: [{ title: t, args: 5 }] }]", "tools[0].examples[0].args", /expected record/],
    ["tools: [{ match: x, external_refs: [{ title: t, url: nope }] }]", "tools[0].external_refs[0].url", /URL/i],
    ["tools: [{ match: x, cache: { policy: sometimes } }]", "tools[0].cache.policy", /auto/],
    ["tools: {", "", /cannot parse/],
  ])("%s → %s", (text, field, detail) => {
    const file = join(tempDir(), "bad.yaml");
    writeFileSync(file, text);
    let error: unknown;
    try {
      loadCatalogFile(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(file);
    expect((error as ConfigError).field).toBe(field);
    expect((error as ConfigError).message).toMatch(detail);
  });
});

describe("shipped docs against the real servers", () => {
  let session: Session;
  beforeAll(async () => {
    session = await openSession({
      mcpServers: {
        ev: servers.everything(),
        files: servers.filesystem(tempDir()),
        mem: servers.memory(join(tempDir(), "memory.jsonl")),
        seq: servers.sequentialThinking(),
      },
    });
  });
  afterAll(() => session?.close());

  /** The namespace each shipped server file's server has here (the servers on npm; built-in entries name their ids). */
  const NAMESPACES: Record<string, string> = {
    "server-everything.yaml": "ev",
    "server-filesystem.yaml": "files",
    "server-memory.yaml": "mem",
    "server-sequential-thinking.yaml": "seq",
  };
  const entries = loadCatalogs([BUILTIN_CATALOG_DIR]).filter((e) => e.match.includes(":") || Object.keys(NAMESPACES).some((file) => e.file.endsWith(file)));
  const validator = new SchemaValidator();

  it("loads entries for every server", () => {
    for (const file of Object.keys(NAMESPACES)) expect(entries.filter((e) => e.file.endsWith(file)).length).toBeGreaterThan(0);
    expect(entries.length).toBeGreaterThan(40);
  });

  it.each([
    ["think this through step by step", "seq:sequentialthinking"],
    ["reason about a hard problem and revise my thinking", "seq:sequentialthinking"],
    ["store a fact in memory", "mem:create_entities"],
  ])("%j finds %s first, in people's words", async (query, id) => {
    expect((await session.call("search_tools", { query })).hits[0].id).toBe(id);
  });

  // Entries for upstream servers match by name (their namespace is the user's choice); built-in ones by full id.
  const idOf = (e: (typeof entries)[number]) =>
    e.match.includes(":") ? e.match : `${Object.entries(NAMESPACES).find(([file]) => e.file.endsWith(file))![1]}:${e.match}`;
  it.each(entries.map((e) => [idOf(e), e] as const))("%s documents a real tool, and its examples are valid calls", (id, entry) => {
    const record = session.app.registry.get(id);
    expect(record, `no tool ${id}`).toBeDefined();
    expect(record!.summary).toBe(entry.summary ?? record!.summary);
    // An entry that says which definition it was written for still matches it: a server update that changes the tool shows here first.
    if (entry.written_for) expect(record!.catalogDrift, `${id} changed since its entry was written`).toBeUndefined();
    for (const example of entry.examples ?? []) expect(validator.validate(record!.inputSchema, example.args)).toEqual({ ok: true });
  });

  it("documents every tool the servers report", () => {
    const documented = new Set(entries.map((e) => e.match));
    const missing = [...session.app.registry.records()].filter((r) => !documented.has(r.name) && !documented.has(r.id)).map((r) => r.id);
    expect(missing).toEqual([]);
  });
});

describe("an entry written for another definition of its tool", () => {
  it("is said to be out of date by describe_tool, and every other entry is not", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "drift.yaml"),
      [
        "tools:",
        "  - match: echo",
        "    summary: Says it back.",
        "    written_for: sha256:000000000000",
        "  - match: get-sum",
        "    summary: Adds two numbers.",
      ].join("\n"),
    );
    const session = await openSession(
      { mcpServers: { ev: servers.everything() }, metatools: { catalogs: [dir], builtinCatalog: false } },
      { builtinCatalog: false },
    );
    try {
      const drifted = await session.call("describe_tool", { tool_id: "ev:echo" });
      expect(drifted.summary).toBe("Says it back.");
      expect(drifted.catalog_drift).toMatch(/written for an earlier definition of it and may be out of date/);
      expect(session.app.registry.get("ev:echo")!.catalogDrift).toEqual({
        writtenFor: "sha256:000000000000",
        now: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      });
      expect((await session.call("describe_tool", { tool_id: "ev:get-sum" })).catalog_drift).toBeUndefined();
    } finally {
      await session.close();
    }
  });
});
