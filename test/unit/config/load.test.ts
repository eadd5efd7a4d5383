import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULTS } from "../../../src/config/defaults.js";
import { loadConfig, parseConfig } from "../../../src/config/load.js";
import { ConfigError } from "../../../src/util/errors.js";
import { tempDir } from "../../helpers/harness.js";

const FILE = "/etc/project/metatools.json";

function errorOf(raw: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    parseConfig(raw, { file: FILE, env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("a server entry that cannot be used is set aside with its field and fix; the rest of the config loads", () => {
  it.each([
    [{ command: 5 }, "mcpServers.gh.command", /expected string/],
    [{}, "mcpServers.gh", /needs `command`/],
    [{ url: "not a url" }, "mcpServers.gh.url", /URL/i],
    [{ command: "x", arg: [] }, "mcpServers.gh", /unknown field\(s\) "arg" \(did you mean "args" for "arg"\?\)/],
    [{ comand: "x" }, "mcpServers.gh", /needs `command`.* \(did you mean "command" for "comand"\?\)$/],
    [{ command: "x", enviroment: {} }, "mcpServers.gh", /unknown field\(s\) "enviroment"$/],
    [{ type: "catalog" }, "mcpServers.gh.tools", /expected string/],
  ])("%j → %s", (entry, field, detail) => {
    const config = parseConfig({ mcpServers: { gh: entry, ok: { command: "x" } } }, { file: FILE, env: {} });
    expect(config.backends.map((b) => b.namespace)).toEqual(["ok"]);
    expect(config.unresolved).toEqual([
      { namespace: "gh", kind: expect.any(String), field, problem: expect.stringMatching(detail), fix: `correct ${field} in ${FILE}, then restart metatools` },
    ]);
    expect(config.unresolved[0]!.problem.startsWith(`${field}: `)).toBe(true);
  });

  it("an unset variable names the variable and where to set it; a disabled entry is not read at all", () => {
    const config = parseConfig(
      { mcpServers: { gh: { command: "x", env: { T: "${MISSING_TOKEN}" } }, off: { command: 5, env: { T: "${ALSO_MISSING}" }, disabled: true } } },
      { file: FILE, env: {} },
    );
    expect(config.backends).toEqual([]);
    expect(config.unresolved).toEqual([
      {
        namespace: "gh",
        kind: "stdio",
        field: "mcpServers.gh.env.T",
        problem: "environment variable MISSING_TOKEN is not set (mcpServers.gh.env.T uses it)",
        fix: "set MISSING_TOKEN in the environment metatools runs in (a running server sees it after a restart)",
      },
    ]);
  });
});

describe("config errors name the file and the field", () => {
  it.each([
    [{ mcpServers: { "a:b": { command: "x" } } }, 'mcpServers["a:b"]', /no ':'/],
    [{ metatools: { budgets: { inlineBytes: 10 } } }, "metatools.budgets.inlineBytes", />=2000/],
    [{ metatools: { search: { mode: "magic" } } }, "metatools.search.mode", /auto/],
    [{ mcpServers: [] }, "mcpServers", /expected record/],
    [{ metatools: { store: { url: "postgres://db" } } }, "metatools.store.url", /redis:\/\/host:port/],
    [{ metatools: { run: { outputValidation: "loud" } } }, "metatools.run.outputValidation", /warn/],
    [{ metatools: { cache: { ttl: 5 } } }, "metatools.cache", /unknown field\(s\) "ttl"/],
    [{ mcpServer: {} }, "", /unknown field\(s\) "mcpServer" \(did you mean "mcpServers" for "mcpServer"\?\)/],
    [
      { metatools: { search: { embedder: { type: "openai", modle: "m", url: "https://e.example" } } } },
      "metatools.search.embedder.model",
      /expected string.* \(did you mean "model" for "modle"\?\)$/,
    ],
    [{ metatools: { store: { url: "${MISSING_URL}" } } }, "metatools.store.url", /MISSING_URL is not set/],
    [{ metatools: { http: { tokens: ["short"] } } }, "metatools.http.tokens[0]", /at least 16 characters/],
    [{ metatools: { http: { allowedOrigins: ["not an origin"] } } }, "metatools.http.allowedOrigins[0]", /URL/i],
    // A union's errors speak of the branch meant: the embedder object, or what the field takes at all.
    [
      { metatools: { search: { embedder: { type: "glove" } } } },
      "metatools.search.embedder.type",
      /'builtin' \| 'static' \| 'transformers' \| 'openai' \| 'use'/,
    ],
    [{ metatools: { search: { embedder: { type: "static" } } } }, "metatools.search.embedder.vectors", /expected string/],
    [{ metatools: { search: { embedder: { type: "builtin", vectors: "x" } } } }, "metatools.search.embedder", /unknown field\(s\) "vectors"/],
    [{ metatools: { search: { embedder: true } } }, "metatools.search.embedder", /expected object or false/],
    [{ metatools: { search: { embeddingCache: true } } }, "metatools.search.embeddingCache", /expected string or false/],
  ])("%j → %s", (raw, field, detail) => {
    const error = errorOf(raw);
    expect(error.file).toBe(FILE);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(detail);
    expect(error.message.startsWith(`${FILE}: ${field}`)).toBe(true);
  });
});

describe("config resolution", () => {
  it("resolves all three kinds of backend with defaults", () => {
    const config = parseConfig(
      {
        mcpServers: {
          local: { command: "npx", args: ["-y", "server"], env: { TOKEN: "${TOKEN}" }, cwd: "sub" },
          remote: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN:-none}" } },
          legacy: { type: "sse", url: "https://example.com/sse", callTimeoutMs: 5 },
          data: { type: "catalog", tools: "tools.jsonl" },
          off: { command: "x", disabled: true },
        },
      },
      { file: FILE, env: { TOKEN: "s3cret" } },
    );
    expect(config.backends.map((b) => [b.namespace, b.kind])).toEqual([
      ["local", "stdio"],
      ["remote", "http"],
      ["legacy", "sse"],
      ["data", "catalog"],
    ]);
    expect(config.backends[0]).toMatchObject({ env: { TOKEN: "s3cret" }, cwd: "/etc/project/sub", callTimeoutMs: 60_000 });
    expect(config.backends[1]).toMatchObject({ headers: { Authorization: "Bearer s3cret" } });
    expect(config.backends[2]!.callTimeoutMs).toBe(5);
    expect(config.backends[3]).toMatchObject({ toolsFile: "/etc/project/tools.jsonl" });
    expect(config.budgets.inlineBytes).toBe(10_000);
    expect(config.search).toMatchObject({ defaultLimit: 5, maxLimit: 50, mode: "auto" });
    expect(config.store).toEqual({ url: "memory", prefix: "metatools", memoryMaxBytes: 64 << 20 });
    expect(config.cache).toEqual({ enabled: true, ttlMs: 300_000, maxEntryBytes: 1 << 20, shareAcrossPrincipals: false });
    expect(config.outputs).toEqual({ ttlMs: 1_800_000, maxBytes: 16 << 20, principalBytes: 64 << 20, totalBytes: 256 << 20 });
    expect(config.run.outputValidation).toBe("warn");
  });

  it("searches hybrid with the built-in embedder unless the config names another, or false for BM25 only", () => {
    const env = { XDG_CACHE_HOME: "/var/cache/someone" };
    const omitted = parseConfig({}, { file: FILE, env }).search;
    expect(omitted.embedder).toEqual({ type: "builtin" });
    expect(omitted.embeddingCache).toBe("/var/cache/someone/metatools/embeddings");
    expect(parseConfig({ metatools: { search: { embedder: { type: "builtin" } } } }, { file: FILE, env }).search.embedder).toEqual({ type: "builtin" });
    const off = parseConfig({ metatools: { search: { embedder: false } } }, { file: FILE, env }).search;
    expect(off.embedder).toBeUndefined();
    expect(off.mode).toBe("auto");
    expect(parseConfig({ metatools: { search: { embedder: { type: "static", vectors: "v/glove.mtvec" } } } }, { file: FILE, env }).search.embedder).toEqual({
      type: "static",
      vectors: "/etc/project/v/glove.mtvec",
    });
    // No config file at all: the same default.
    expect(loadConfig({ cwd: tempDir(), env }).search.embedder).toEqual({ type: "builtin" });
  });

  it("resolves an embedding service: its defaults, the URL without a trailing slash, and its ${VAR} key a secret", () => {
    const embedder = { type: "openai", url: "http://127.0.0.1:11434/v1/", model: "nomic-embed-text", apiKey: "${EMBED_KEY}", queryPrefix: "search_query: " };
    const config = parseConfig({ metatools: { search: { embedder } } }, { file: FILE, env: { EMBED_KEY: "sk-0123456789abcdef0123" } });
    expect(config.search.embedder).toEqual({
      type: "openai",
      url: "http://127.0.0.1:11434/v1",
      model: "nomic-embed-text",
      apiKey: "sk-0123456789abcdef0123",
      queryPrefix: "search_query: ",
      documentPrefix: "",
      batchSize: 64,
      concurrency: 2,
      timeoutMs: 30_000,
      queryTimeoutMs: 1500,
    });
    expect(config.secrets.map((secret) => secret.value)).toContain("sk-0123456789abcdef0123");
    expect(() =>
      parseConfig({ metatools: { search: { embedder: { ...embedder, url: "file:///etc/passwd" } } } }, { file: FILE, env: { EMBED_KEY: "x".repeat(20) } }),
    ).toThrow(/metatools\.search\.embedder\.url/);
  });

  it("resolves a SQLite store path against the config file's folder, and keeps a Redis URL as written", () => {
    expect(parseConfig({ metatools: { store: { url: "sqlite://state/cache.db" } } }, { file: FILE }).store.url).toBe("sqlite:///etc/project/state/cache.db");
    expect(parseConfig({ metatools: { store: { url: "sqlite:///var/cache.db" } } }, { file: FILE }).store.url).toBe("sqlite:///var/cache.db");
    expect(parseConfig({ metatools: { store: { url: "redis://:pw@10.0.0.5:6379/2" } } }, { file: FILE }).store.url).toBe("redis://:pw@10.0.0.5:6379/2");
  });

  it("uses the default for ${VAR:-default} when the variable is unset", () => {
    const config = parseConfig({ mcpServers: { r: { url: "${BASE:-http://127.0.0.1:9}/mcp" } } }, { file: FILE, env: {} });
    expect(config.backends[0]).toMatchObject({ url: "http://127.0.0.1:9/mcp" });
  });

  it("finds metatools.json in the working directory, and runs on defaults without one", () => {
    const dir = tempDir();
    expect(loadConfig({ cwd: dir, env: {} }).backends).toEqual([]);
    writeFileSync(join(dir, "metatools.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    expect(loadConfig({ cwd: dir, env: {} }).backends[0]!.namespace).toBe("a");
  });

  it("prefers --config over METATOOLS_CONFIG, and reports a missing explicit file", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "conf"));
    writeFileSync(join(dir, "conf", "a.json"), JSON.stringify({ mcpServers: { fromflag: { command: "x" } } }));
    writeFileSync(join(dir, "conf", "b.json"), JSON.stringify({ mcpServers: { fromenv: { command: "x" } } }));
    expect(loadConfig({ cwd: dir, env: { METATOOLS_CONFIG: "conf/b.json" } }).backends[0]!.namespace).toBe("fromenv");
    expect(loadConfig({ cwd: dir, configPath: "conf/a.json", env: { METATOOLS_CONFIG: "conf/b.json" } }).backends[0]!.namespace).toBe("fromflag");
    expect(() => loadConfig({ cwd: dir, configPath: "nope.json", env: {} })).toThrow(/nope\.json: file not found/);
  });

  it("resolves the http section, adding tokens from METATOOLS_TOKENS and refusing short ones", () => {
    const http = parseConfig(
      { metatools: { http: { tokens: ["${TOKEN_A}"], allowedOrigins: ["https://app.example.com/path"] } } },
      { file: FILE, env: { TOKEN_A: "a".repeat(20), METATOOLS_TOKENS: ` ${"b".repeat(16)} ,` } },
    ).http;
    expect(http).toMatchObject({
      tokens: ["a".repeat(20), "b".repeat(16)],
      allowedOrigins: ["https://app.example.com"],
      maxBodyBytes: 1 << 20,
      bodyTimeoutMs: 10_000,
      rateLimit: { perMinute: 1200, burst: 200 },
    });
    expect(() => parseConfig({}, { file: FILE, env: { METATOOLS_TOKENS: "short" } })).toThrow(/METATOOLS_TOKENS: a bearer token needs at least 16 characters/);
  });

  it("parses the shipped example configs", () => {
    const root = fileURLToPath(new URL("../../..", import.meta.url));
    const env = { REDIS_URL: "redis://127.0.0.1:6379", METATOOLS_TOKEN: "t".repeat(24) };
    expect(loadConfig({ configPath: join(root, "examples/metatools.json"), env }).backends.map((b) => b.namespace)).toEqual(["everything", "files"]);
    const replicas = loadConfig({ configPath: join(root, "examples/replicas/metatools.json"), env });
    expect(replicas.store.url).toBe("redis://127.0.0.1:6379");
    expect(replicas.http.tokens).toEqual(["t".repeat(24)]);
  });

  it("reports invalid JSON with the file name", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "metatools.json"), "{ nope");
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/metatools\.json: not valid JSON/);
  });

  it("lets a config whose http section names an unset variable load for everything but serving HTTP", () => {
    const dir = tempDir();
    const file = join(dir, "metatools.json");
    const token = "t0ken-for-the-admin-0123456789";
    writeFileSync(file, JSON.stringify({ mcpServers: {}, metatools: { http: { tokens: ["${ADMIN_TOKEN}"], maxSessions: 7 }, cache: { ttlMs: 1234 } } }));
    const unset = loadConfig({ configPath: file, env: {} });
    expect(unset.httpUnset?.message).toMatch(/metatools\.http\.tokens\[0\].*environment variable ADMIN_TOKEN is not set/);
    // Nothing of the section is applied, never part of it: the defaults stand until it can be read whole.
    expect(unset.http.tokens).toEqual([]);
    expect(unset.http.maxSessions).toBe(DEFAULTS.http.maxSessions);
    expect(unset.cache.ttlMs).toBe(1234);
    const set = loadConfig({ configPath: file, env: { ADMIN_TOKEN: token } });
    expect(set.httpUnset).toBeUndefined();
    expect(set.http.tokens).toEqual([token]);
    expect(set.http.maxSessions).toBe(7);
    expect(set.secrets.map((s) => s.value)).toContain(token);
    // Elsewhere in the config an unset variable still refuses it.
    writeFileSync(file, JSON.stringify({ mcpServers: {}, metatools: { store: { url: "${STORE_URL}" } } }));
    expect(() => loadConfig({ configPath: file, env: {} })).toThrow(/STORE_URL is not set/);
  });

  it("says where invalid JSON goes wrong by line and column, not by byte position", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "metatools.json"), '{\n  "mcpServers": {\n    "files" {}\n  }\n}\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/not valid JSON: line 3, column 13: (Expected .:. after property name|Unexpected token)/);
    writeFileSync(join(dir, "metatools.json"), '{\n  "mcpServers": {\n');
    expect(() => loadConfig({ cwd: dir, env: {} })).toThrow(/not valid JSON: line 3, column 1: (Unexpected end of JSON input|Expected property name or '}')/);
    expect(() => loadConfig({ cwd: dir, env: {} })).not.toThrow(/position/);
  });
});
