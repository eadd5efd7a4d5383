/**
 * A stdio MCP server for the soak (compiled to dist/bench/soak/backend.js):
 * it answers `ping` small and `blob` with 1–5 MB of text, and churns on
 * demand, so the server under test meets what long-lived backends do.
 *   node backend.js [--rename-ms N] [--crash-ms N]
 * --rename-ms: every N ms its tools get new names (`blob_r7`, `ping_r7`) and
 * it sends `notifications/tools/list_changed`; a call to an older name is
 * still answered, as a backend mid-deploy would.
 * --crash-ms: it exits with status 1 after N ms, ± 30 %, every start anew.
 */
import { parseArgs } from "node:util";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const { values } = parseArgs({ options: { "rename-ms": { type: "string" }, "crash-ms": { type: "string" } } });
const renameMs = Number(values["rename-ms"] ?? 0);
const crashMs = Number(values["crash-ms"] ?? 0);

/** One line of a blob: the seed first, so a reader can tell it got this blob's text back. */
const LINE_BYTES = 100;

/** `mb` megabytes of text in 100-byte lines, each naming `seed` and its line number. */
function blobText(seed: string, mb: number): string {
  const lines = Math.round((mb * 2 ** 20) / LINE_BYTES);
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) {
    const head = `${seed} line ${i} `;
    out.push(head.padEnd(LINE_BYTES - 1, "x"));
  }
  return out.join("\n");
}

let generation = 0;
const suffix = () => (renameMs > 0 ? `_r${generation}` : "");

function tools() {
  return [
    {
      name: `blob${suffix()}`,
      description: "Returns a large text document (1 to 5 MB) of numbered lines that start with the given seed.",
      inputSchema: {
        type: "object",
        properties: { mb: { type: "number", minimum: 1, maximum: 5 }, seed: { type: "string" } },
        required: ["mb", "seed"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: `ping${suffix()}`,
      description: "Answers with the message it was given.",
      inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
      annotations: { readOnlyHint: true },
    },
  ];
}

const server = new Server({ name: "soak-backend", version: "1.0.0" }, { capabilities: { tools: { listChanged: renameMs > 0 } } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools() }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = (request.params.arguments ?? {}) as { mb?: number; seed?: string; message?: string };
  if (request.params.name.startsWith("blob")) {
    const mb = Math.min(5, Math.max(1, Number(args.mb) || 1));
    return { content: [{ type: "text", text: blobText(String(args.seed ?? "seed"), mb) }] };
  }
  if (request.params.name.startsWith("ping")) return { content: [{ type: "text", text: `pong ${String(args.message ?? "")}` }] };
  return { content: [{ type: "text", text: `no tool ${request.params.name}` }], isError: true };
});

await server.connect(new StdioServerTransport());
if (renameMs > 0)
  setInterval(() => {
    generation++;
    void server.sendToolListChanged().catch(() => {});
  }, renameMs);
if (crashMs > 0) setTimeout(() => process.exit(1), crashMs * (0.7 + Math.random() * 0.6));
