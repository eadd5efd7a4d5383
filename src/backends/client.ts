/**
 * The SDK client metatools opens to one backend: what it declares, how it
 * finds the backend's protocol era, and where the backend's questions go.
 */
import { Client, type CreateMessageResult } from "@modelcontextprotocol/client";
import type { CreateMessageRequest, ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import type { ClientFeatures } from "../model/peer.js";
import { packageVersion } from "../util/version.js";
import { MAX_LIST_PAGES } from "./era.js";
import type { CallingPeers } from "./peers.js";
import { sdkSchemaValidator } from "./sdk-validator.js";

export function backendClient(features: ClientFeatures, probeMs: number, onToolsChanged: () => void): Client {
  return new Client(
    { name: "metatools", version: packageVersion() },
    {
      // A request comes back to the client whose call caused it, or is refused, saying why (peers.ts). Undeclared, the server is told no.
      capabilities: { ...(features.elicitation ? { elicitation: {} } : {}), ...(features.sampling ? { sampling: {} } : {}) },
      jsonSchemaValidator: sdkSchemaValidator(),
      // Both eras: a 2025 server's `initialize`, or a 2026-07-28 server's `server/discover` (whose questions come back
      // inside `input_required` results, answered through the same handlers, then the call is retried).
      versionNegotiation: { mode: "auto", probe: { timeoutMs: probeMs } },
      // listTools walks every page itself; a misbehaving server could page forever, 1,000 pages is far beyond any real one.
      listMaxPages: MAX_LIST_PAGES,
      listChanged: { tools: { autoRefresh: false, debounceMs: 50, onChanged: onToolsChanged } },
    },
  );
}

/**
 * The same handlers answer a 2025 server's requests and a 2026-07-28
 * server's `input_required` questions: each goes to the client whose call
 * caused it (peers.ts). The SDK's v2 types and the v1 ones peers.ts speaks
 * are the same wire shapes, apart from how loosely a few fields are typed.
 */
export function answerQuestions(client: Client, features: ClientFeatures, peers: CallingPeers): void {
  if (features.elicitation)
    client.setRequestHandler("elicitation/create", (request, ctx) => peers.ask("elicitation", request.params as ElicitRequest["params"], ctx.mcpReq.signal));
  if (features.sampling)
    client.setRequestHandler(
      "sampling/createMessage",
      async (request, ctx) => (await peers.ask("sampling", request.params as CreateMessageRequest["params"], ctx.mcpReq.signal)) as CreateMessageResult,
    );
}
