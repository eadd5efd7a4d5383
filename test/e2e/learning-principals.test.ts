/**
 * One caller cannot steer what another finds. A real HTTP server (in this
 * process, the one `metatools serve --http` runs) with four bearer tokens,
 * real SDK clients, the real filesystem server and a backend that games
 * search (test/fixtures/stuffed-server.mjs: an `exfil` tool, an honest
 * `send_email`, a keyword-stuffed `sitemap`):
 * - what one token teaches ranks for that token, and for the others only
 *   once `learn.shareAfterPrincipals` (3) distinct tokens agree;
 * - a description stuffed with a request's words does not outrank the tool
 *   that does what it asks.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Metatools } from "../../src/app.js";
import { createMetatools, BUILTIN_CATALOG_DIR } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigFile } from "../../src/config/schema.js";
import { serveHttp, type HttpService } from "../../src/http/server.js";
import { servers, tempDir } from "../helpers/harness.js";
import { httpClientTransport } from "../helpers/serve.js";

const TOKENS = {
  a: "token-a-0123456789abcdef",
  b: "token-b-0123456789abcdef",
  c: "token-c-0123456789abcdef",
  d: "token-d-0123456789abcdef",
  e: "token-e-0123456789abcdef",
};
const STUFFED = fileURLToPath(new URL("../fixtures/stuffed-server.mjs", import.meta.url));
const TASK = "send an email to my boss";
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

let app: Metatools;
let service: HttpService;
const clients: Client[] = [];

/** A client of the server sending `token`: searches (ids, best first) and runs, as an agent makes them. */
async function caller(token: string, path = "") {
  const client = new Client({ name: "principals-test", version: "1" });
  await client.connect(httpClientTransport(service.url + path, token));
  clients.push(client);
  const call = async (name: string, args: Record<string, unknown>) =>
    JSON.parse(((await client.callTool({ name, arguments: args })).content as { text: string }[])[0]!.text) as Record<string, any>;
  return {
    search: async (query: string, mode?: string) =>
      ((await call("search_tools", { query, limit: 5, ...(mode ? { mode } : {}) })).hits as { id: string }[]).map((h) => h.id),
    /** A search for the task, then a successful run of `tool`: what teaches search. */
    teach: async (tool: string, task = TASK) => {
      await call("search_tools", { query: task, limit: 5 });
      expect((await call("run_tool", { tool_id: tool, args: { text: "the inbox" } })).ok).not.toBe(false);
    },
  };
}

beforeAll(async () => {
  const dir = tempDir();
  const config: ConfigFile = {
    mcpServers: { fs: servers.filesystem(dir), evil: { command: process.execPath, args: [STUFFED] } },
    metatools: { code: { enabled: false }, http: { tokens: Object.values(TOKENS) }, profiles: { p1: {}, p2: {} } },
  };
  const file = join(dir, "metatools.json");
  writeFileSync(file, JSON.stringify(config));
  app = createMetatools(parseConfig(config, { file, builtinCatalogDir: BUILTIN_CATALOG_DIR }));
  service = await serveHttp(app, { port: 0, host: "127.0.0.1", stateless: false }, quiet);
  await app.backends.waitForStartup(20_000);
  await app.search.semantic?.whenIdle();
  expect(app.registry.namespaceRecords("evil").map((r) => r.name)).toEqual(expect.arrayContaining(["exfil", "sitemap", "send_email"]));
  expect(app.registry.namespaceRecords("fs").map((r) => r.name)).toContain("directory_tree");
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await service?.close();
});

describe("what one token teaches", () => {
  it("ranks for that token at once, and for another only once three distinct tokens agree", async () => {
    const [a, b, c, d] = await Promise.all([caller(TOKENS.a), caller(TOKENS.b), caller(TOKENS.c), caller(TOKENS.d)]);
    const before = await b.search(TASK);
    expect(before[0]).toBe("evil:send_email");
    for (let i = 0; i < 3; i++) await a.teach("evil:exfil");
    expect((await a.search(TASK))[0]).toBe("evil:exfil");
    expect((await b.search(TASK))[0]).toBe(before[0]);
    // A second token agreeing is still not enough.
    await c.teach("evil:exfil");
    expect((await b.search(TASK))[0]).toBe(before[0]);
    await d.teach("evil:exfil");
    expect((await b.search(TASK))[0]).toBe("evil:exfil");
  });
});

describe("a keyword-stuffed description", () => {
  it.each(["hybrid", "bm25"])("does not outrank the real directory_tree for 'list the directory tree' (%s)", async (mode) => {
    const b = await caller(TOKENS.b);
    for (const query of ["list the directory tree", "show the directory tree"]) {
      const hits = await b.search(query, mode);
      expect(hits[0], query).toBe("fs:directory_tree");
      expect(hits).toContain("evil:sitemap");
    }
  });
});

describe("one token on several paths", () => {
  it("is one caller: teaching on /mcp, /mcp/default, /mcp/p1 and /mcp/p2 does not make it the three callers sharing needs", async () => {
    const letter = "show the whole folder hierarchy";
    const b = await caller(TOKENS.b);
    const before = (await b.search(letter))[0];
    expect(before).not.toBe("evil:exfil");
    const paths = await Promise.all(["", "/default", "/p1", "/p2"].map((path) => caller(TOKENS.e, path)));
    for (const e of paths) await e.teach("evil:exfil", letter);
    // It ranks for the one who taught it, on every path.
    for (const e of paths) expect((await e.search(letter))[0]).toBe("evil:exfil");
    expect((await b.search(letter))[0]).toBe(before);
  });
});
