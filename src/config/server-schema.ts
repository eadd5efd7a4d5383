/**
 * One `mcpServers` entry of the config file: a stdio command, a remote URL
 * (with its OAuth settings), or a catalog-only tools.jsonl.
 */
import * as z from "zod";

/** Backend names become tool-id namespaces, so they may not contain a colon. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const stringMap = z.record(z.string(), z.string());

const common = {
  disabled: z.boolean().optional().describe("Keep the entry but do not start it."),
  connectTimeoutMs: z.number().int().positive().optional().describe("Overrides metatools.timeouts.connectMs for this backend."),
  callTimeoutMs: z.number().int().positive().optional().describe("Overrides metatools.timeouts.callMs for this backend."),
};

/** Which of the server's tools metatools serves, by the server's own tool names. */
const toolFilter = z
  .object({
    allow: z.array(z.string().min(1)).optional().describe("Globs over this server's tool names (`read_*`); when set, only matching tools are served."),
    deny: z.array(z.string().min(1)).optional().describe("Globs over this server's tool names never served; deny wins over allow."),
  })
  .strict()
  .optional()
  .describe("Which of this server's tools metatools serves (by the server's names, without the namespace); the rest are hidden from everyone.");

/** The operator's word on which server this is: what catalogs match instead of the name it reports. */
const serverName = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe(
    "Which server this is, in your word: catalog entries for that server (their file's `server` glob) apply by this name instead of the `serverInfo.name` the backend reports, and may then mark its tools read-only or not destructive even where their `written_for` no longer matches. Without it, a catalog never makes a tool read-only or not destructive on the backend's claim of its name alone.",
  );

const stdioServer = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1).describe("Executable to spawn, e.g. `npx` or `node`."),
    args: z.array(z.string()).optional(),
    env: stringMap.optional().describe("Added to a minimal inherited environment (PATH, HOME, …)."),
    cwd: z.string().optional().describe("Working directory; relative paths resolve against the config file's folder."),
    tools: toolFilter,
    serverName,
    ...common,
  })
  .strict()
  .describe("stdio: a child process");

/** How metatools signs in to a remote server that asks for OAuth (the MCP authorization spec); see docs/oauth.md. */
const oauthSchema = z
  .object({
    clientId: z
      .string()
      .min(1)
      .optional()
      .describe(
        "A client registered in advance with the authorization server. Without it, metatools uses clientMetadataUrl where the server supports it, else registers itself (dynamic client registration).",
      ),
    clientSecret: z.string().min(1).optional().describe("The pre-registered client's secret; write it as ${ENV_VAR}. Omit for a public client."),
    tokenEndpointAuthMethod: z
      .enum(["client_secret_basic", "client_secret_post", "none"])
      .optional()
      .describe("How the pre-registered client authenticates at the token endpoint. Default client_secret_basic with a secret, none without."),
    clientMetadataUrl: z
      .string()
      .url()
      .refine((url) => url.startsWith("https://") && new URL(url).pathname !== "/", "must be an https URL with a path")
      .optional()
      .describe(
        "An https URL where you publish this client's metadata document, used as the client id where the server supports Client ID Metadata Documents.",
      ),
    scopes: z
      .array(z.string().min(1))
      .optional()
      .describe("Scopes to ask for, instead of the ones the server suggests (its WWW-Authenticate scope, else its scopes_supported)."),
    callbackPort: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe(
        "Port of the sign-in callback on 127.0.0.1 (http://127.0.0.1:PORT/callback). Default: any free port; set it when a pre-registered client allows only one redirect URI.",
      ),
  })
  .strict();

const remoteServer = z
  .object({
    type: z.enum(["http", "streamable-http", "sse"]).optional().describe("Default http (Streamable HTTP); sse for legacy servers."),
    url: z.string().url(),
    headers: stringMap
      .optional()
      .describe("Sent with every request, e.g. Authorization: Bearer ${TOKEN}. A server given an Authorization header is not signed in to with OAuth."),
    oauth: z
      .union([oauthSchema, z.literal(false)])
      .optional()
      .describe(
        "Sign-in settings for a server that asks for OAuth (`metatools auth login NAME`). Optional: without it metatools discovers everything from the server. false: never sign in.",
      ),
    tools: toolFilter,
    serverName,
    ...common,
  })
  .strict()
  .describe("remote: Streamable HTTP or legacy SSE");

const catalogServer = z
  .object({
    type: z.literal("catalog"),
    tools: z
      .string()
      .min(1)
      .describe("A tools.jsonl file ({id, server?, name, description, inputSchema?} per line). Searchable and describable, not runnable."),
    ...common,
  })
  .strict()
  .describe("catalog: a tools.jsonl file");

export const serverSchema = z.union([stdioServer, remoteServer, catalogServer]);

export type ServerConfig = z.infer<typeof serverSchema>;
