/**
 * Several callers (principals) of one real app, each through its own MCP
 * session over an in-memory transport, as HTTP serves one session per
 * bearer token: the server is told the session's principal, and everything
 * else (dispatch, budget, handles, store) is the real thing. Apps opened
 * on the same Redis are replicas sharing it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMetatools, type Metatools } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigFile } from "../../src/config/schema.js";
import { createSessionServer } from "../../src/serving.js";
import { tempDir } from "./temp-dir.js";

export interface Caller {
  /** run_tool with these arguments, its JSON body parsed. */
  run(args: Record<string, unknown>): Promise<Record<string, any>>;
}

export interface Replica {
  app: Metatools;
  /** A session of `principal` on this replica. */
  caller(principal: string): Promise<Caller>;
  close(): Promise<void>;
}

export async function openReplica(config: ConfigFile): Promise<Replica> {
  const app = createMetatools(parseConfig(config, { file: `${tempDir()}/metatools.json` }), { backoffMs: [200, 400] });
  await app.start();
  const closers: (() => Promise<void>)[] = [];
  return {
    app,
    async caller(principal) {
      const server = createSessionServer(app, { principal });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const client = new Client({ name: "quota-test", version: "1" });
      await server.connect(serverSide);
      await client.connect(clientSide);
      closers.push(async () => {
        await client.close();
        await server.close();
      });
      return {
        run: async (args) => JSON.parse(((await client.callTool({ name: "run_tool", arguments: args })).content as { text: string }[])[0]!.text),
      };
    },
    async close() {
      await Promise.all(closers.map((close) => close()));
      await app.close();
    },
  };
}
