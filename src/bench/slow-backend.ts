/**
 * A stdio MCP server for the snapshot start benchmark: it lists the tools
 * of a JSONL file (synthetic.ts) and answers each call with its arguments,
 * but only starts after a delay, like a slow npx-launched server.
 *   node slow-backend.js TOOLS.jsonl DELAY_MS
 */
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [file, delay] = process.argv.slice(2);
if (!file) throw new Error("usage: slow-backend.js TOOLS.jsonl [DELAY_MS]");

setTimeout(() => void serve(file), Number(delay ?? 5000));

async function serve(path: string): Promise<void> {
  const tools = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const { name, description, inputSchema } = JSON.parse(line) as { name: string; description: string; inputSchema: Record<string, unknown> };
      return { name, description, inputSchema };
    });
  const server = new Server({ name: "slow-bench", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: "text", text: `${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}` }],
  }));
  await server.connect(new StdioServerTransport());
}
