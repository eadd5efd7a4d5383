/**
 * `metatools:read_resource`: reads a resource link a backend returned
 * (`metatools://…`), for clients that do not read resources themselves.
 * The same read as the server's `resources/read`; the contents come back
 * as resources (text in the JSON, binary as MCP content within the media
 * budget).
 */
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { formatCall, hint, recoverable, warning, type NextCall } from "../disclosure/guidance.js";
import { READ_RESOURCE_ID, SHARED_SCHEME } from "../disclosure/resource-links.js";
import type { ResourceReader } from "../exec/resources.js";
import { defineTool, RawResult, type Body } from "./backend.js";

export function readResourceTool(reader: () => ResourceReader) {
  return defineTool({
    name: "read_resource",
    title: "Read a linked resource",
    description: "Read a metatools:// resource link that a tool's result returned in its links field. The uri must come from such a link.",
    args: z.strictObject({
      uri: z
        .string()
        .min(SHARED_SCHEME.length + 2)
        .max(4096)
        .regex(/^metatools:\/\//)
        .describe('The link\'s uri, e.g. "metatools://everything/demo://resource/static/document/architecture.md".'),
    }),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },

    async handle({ uri }, { principal, signal }): Promise<Body | RawResult> {
      const outcome = await reader().read(uri, principal, signal);
      if (outcome.kind === "unknown")
        return recoverable("unknown_resource", outcome.message, hint("Run the call that returned the link again; its reply carries a fresh one."));
      if (outcome.kind === "failed") {
        const again: NextCall = { tool: "run_tool", arguments: { tool_id: READ_RESOURCE_ID, args: { uri } } };
        return recoverable(
          outcome.code,
          outcome.message,
          outcome.code === "backend_unavailable"
            ? hint(`Retry once it is up: ${formatCall(again)}`, again)
            : warning("The backend refused or failed the read; its message is above."),
        );
      }
      return new RawResult({ content: asContent(outcome.result) });
    },
  });
}

/** Each of a read's contents as an embedded resource: text ones go in the reply's JSON, binary ones beside it. */
function asContent(result: ReadResourceResult): RawResult["result"]["content"] {
  if (!result.contents.length) return [{ type: "text", text: "The resource is empty." }];
  return result.contents.map((resource) => ({ type: "resource" as const, resource }));
}
