/**
 * The SDK client metatools opens to one backend: what it declares, how it
 * finds the backend's protocol era, and where the backend's questions go.
 */
import { Client, SdkErrorCode, type CreateMessageResult, type Tool } from "@modelcontextprotocol/client";
import type {
  CreateMessageRequest,
  ElicitRequest,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../util/errors.js";
import { BackendError } from "./errors.js";
import { searchHint } from "../registry/about.js";
import type { UpstreamTool } from "../model/tool.js";
import type { ClientFeatures } from "../model/peer.js";
import { packageVersion } from "../util/version.js";
import { isSdkError, MAX_LIST_PAGES } from "./era.js";
import { callFailure } from "./failures.js";
import type { CallingPeers } from "./peers.js";
import { sdkSchemaValidator } from "./sdk-validator.js";
import type { ListedResources } from "./types.js";

export function backendClient(features: ClientFeatures, probeMs: number, onToolsChanged: () => void): Client {
  return new Client(
    { name: "metatools", version: packageVersion() },
    {
      // A request comes back to the client whose call caused it, or is refused, saying why (peers.ts). Undeclared, the server is told no.
      capabilities: declaredCapabilities(features),
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

/** What metatools tells a backend its side can answer: what the clients it serves can (elicitation, sampling). */
export function declaredCapabilities(features: ClientFeatures): { elicitation?: Record<string, never>; sampling?: Record<string, never> } {
  return { ...(features.elicitation ? { elicitation: {} } : {}), ...(features.sampling ? { sampling: {} } : {}) };
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

type Listing = { signal?: AbortSignal; timeoutMs: number };

/** Every prompt the server lists (all pages, never the SDK's cache); none when it declares no prompts. */
export async function promptsOf(client: Client, { signal, timeoutMs }: Listing): Promise<Prompt[]> {
  if (!client.getServerCapabilities()?.prompts) return [];
  return (await client.listPrompts(undefined, { signal, timeout: timeoutMs, cacheMode: "bypass" })).prompts as Prompt[];
}

export async function promptOf(client: Client, namespace: string, name: string, args: Record<string, string>, options: Listing): Promise<GetPromptResult> {
  try {
    return (await client.getPrompt({ name, arguments: args }, { signal: options.signal, timeout: options.timeoutMs })) as GetPromptResult;
  } catch (error) {
    throw callFailure(error, {
      what: `${namespace}'s prompt ${name}`,
      timeoutMs: options.timeoutMs,
      aborted: options.signal?.aborted === true,
      closed: () => `${namespace} closed the connection`,
    });
  }
}

/** Every resource and resource template the server lists; none when it declares no resources. */
export async function resourcesOf(client: Client, { signal, timeoutMs }: Listing): Promise<ListedResources> {
  if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
  const options = { signal, timeout: timeoutMs, cacheMode: "bypass" as const };
  const [resources, templates] = await Promise.all([
    client.listResources(undefined, options),
    client.listResourceTemplates(undefined, options).catch(() => ({ resourceTemplates: [] })),
  ]);
  return { resources: resources.resources as Resource[], templates: templates.resourceTemplates as ResourceTemplate[] };
}

/** A tool as the server lists it, as metatools keeps it. */
export function toUpstream(tool: Tool): UpstreamTool {
  return {
    name: tool.name,
    title: tool.title ?? tool.annotations?.title,
    description: tool.description,
    inputSchema: tool.inputSchema as UpstreamTool["inputSchema"],
    outputSchema: tool.outputSchema as UpstreamTool["outputSchema"],
    annotations: tool.annotations,
    ...searchHint(tool._meta),
  };
}

/** `uri` read from the server, its failures as BackendErrors. */
export async function resourceOf(client: Client, namespace: string, uri: string, options: Listing): Promise<ReadResourceResult> {
  if (!client.getServerCapabilities()?.resources) throw new BackendError("upstream_error", `${namespace} serves no resources`);
  try {
    return (await client.readResource({ uri }, { signal: options.signal, timeout: options.timeoutMs })) as ReadResourceResult;
  } catch (error) {
    // First: the SDK rejects an aborted request as a timeout too.
    if (options.signal?.aborted) throw new BackendError("cancelled", `reading ${uri} from ${namespace} was cancelled`);
    if (isSdkError(error, SdkErrorCode.RequestTimeout)) throw new BackendError("timeout", `${namespace} did not return ${uri} within ${options.timeoutMs} ms`);
    throw new BackendError("upstream_error", `${namespace} could not read ${uri}: ${errorMessage(error)}`);
  }
}
