/**
 * A session the client ends lets go of everything it held: its MCP server
 * was subscribed to the log messages clients receive (MCP logging), and a
 * session ended by the client (DELETE) never went through the server's
 * close, so every such session stayed subscribed, holding its server, for
 * the process's life (the soak's heap grew 0.8 MB a minute).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMetatools, BUILTIN_CATALOG_DIR, type Metatools } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigFile } from "../../src/config/schema.js";
import { serveHttp, type HttpService } from "../../src/http/server.js";
import { silentLogger } from "../../src/util/log.js";
import { tempDir } from "../helpers/harness.js";
import { httpClientTransport } from "../helpers/serve.js";

const TOKEN = "session-release-token-0123456789";
let app: Metatools;
let service: HttpService;

beforeAll(async () => {
  const dir = tempDir();
  const config: ConfigFile = { metatools: { code: { enabled: false }, http: { tokens: [TOKEN] } } };
  const file = join(dir, "metatools.json");
  writeFileSync(file, JSON.stringify(config));
  app = createMetatools(parseConfig(config, { file, builtinCatalogDir: BUILTIN_CATALOG_DIR }));
  service = await serveHttp(app, { port: 0, host: "127.0.0.1", stateless: false }, silentLogger);
});

afterAll(async () => {
  await service?.close();
});

it("a session its client ends (DELETE) is no longer subscribed to client log messages", async () => {
  const before = app.clientLog.size;
  for (let i = 0; i < 20; i++) {
    const transport = httpClientTransport(service.url, TOKEN);
    const client = new Client({ name: "release", version: "1.0.0" });
    await client.connect(transport);
    await client.callTool({ name: "search_tools", arguments: { query: "read a file" } });
    expect(app.clientLog.size).toBe(before + 1);
    await transport.terminateSession();
    await client.close();
  }
  // The server learns of each end as the DELETE is answered: wait for the last, without a clock.
  await expect.poll(() => app.clientLog.size).toBe(before);
});
