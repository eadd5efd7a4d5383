/**
 * A stdio MCP server for the programs benchmark: one tool, `wait`, that
 * answers after `ms` milliseconds, so calls made at once can be set against
 * the slowest of them.
 *   node wait-backend.js
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "wait-bench", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "wait",
      description: "Answer after ms milliseconds.",
      inputSchema: { type: "object", properties: { ms: { type: "number" }, tag: { type: "string" } }, required: ["ms"] },
      annotations: { readOnlyHint: true, idempotentHint: false },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const ms = Math.min(10_000, Math.max(0, Number((request.params.arguments as { ms?: unknown } | undefined)?.ms) || 0));
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { content: [{ type: "text", text: `waited ${ms} ms` }] };
});
await server.connect(new StdioServerTransport());
