/**
 * The OAuth test world: a real authorization server and one or more protected
 * MCP servers on 127.0.0.1 (ephemeral ports), plus an HTTPS host for a client
 * ID metadata document, sharing one token store and one event log. In
 * 2025-03-26 mode each MCP server's origin is its own authorization server.
 */
import { createServer, type Server } from "node:http";
import { authorizationServer, type RouteHandler } from "./authorization-server.js";
import { fetchDocument, startCimdHost } from "./cimd.js";
import { ClientRegistry } from "./clients.js";
import { closeServer, guarded, listen, requestUrl, sendJson } from "./http.js";
import { MCP_PATH, PRM_PATH, PRM_ROOT_PATH, protectedMcpServer } from "./mcp-server.js";
import { CodeStore, TokenStore } from "./store.js";
import type { OAuthWorld, WorldEvent, WorldOptions, WorldServer } from "./types.js";

export type * from "./types.js";

interface Origin {
  server: Server;
  url: string;
  routes: RouteHandler[];
}

/** An http server on 127.0.0.1 whose routes are filled in once every port is known; /.well-known/ GETs are logged. */
async function startOrigin(record: (event: WorldEvent) => void): Promise<Origin> {
  const routes: RouteHandler[] = [];
  const server = createServer(
    guarded(async (req, res) => {
      const url = requestUrl(req);
      if (url.pathname.startsWith("/.well-known/")) {
        const event: WorldEvent = { kind: "discovery", url: `${origin.url}${url.pathname}${url.search}`, status: 0 };
        record(event);
        res.on("finish", () => (event.status = res.statusCode));
      }
      for (const route of routes) if (await route(req, res, url)) return;
      sendJson(res, 404, { error: "not_found", error_description: `nothing at ${url.pathname}` });
    }),
  );
  const origin: Origin = { server, url: "", routes };
  origin.url = `http://127.0.0.1:${await listen(server)}`;
  return origin;
}

function checkOptions(options: WorldOptions): void {
  for (const client of options.preRegistered ?? []) {
    if (client.token_endpoint_auth_method !== "none" && !client.client_secret)
      throw new Error(`pre-registered client ${client.client_id} needs a client_secret`);
  }
  if ((options.servers ?? 1) < 1) throw new Error("servers must be at least 1");
}

export async function startOAuthWorld(options: WorldOptions = {}): Promise<OAuthWorld> {
  checkOptions(options);
  const spec = options.spec ?? "2025-06-18";
  const prmLocation = options.prmLocation ?? "path";
  const events: WorldEvent[] = [];
  const record = (event: WorldEvent) => void events.push(event);
  const tokens = new TokenStore(options.accessTokenTtlSec ?? 3600);
  const registries: ClientRegistry[] = [];

  const cimdHost = await startCimdHost();
  const mcpOrigins = await Promise.all(Array.from({ length: options.servers ?? 1 }, () => startOrigin(record)));
  const asOrigins =
    spec === "2025-06-18" ? await Promise.all(Array.from({ length: Math.max(1, options.authorizationServers ?? 1) }, () => startOrigin(record))) : [];
  const asOrigin = asOrigins[0];
  let current = asOrigin?.url;
  const resources = mcpOrigins.map((o) => `${o.url}${MCP_PATH}`);

  const addAuthorizationServer = (origin: Origin, served: string[], defaultResource?: string) => {
    const clients = new ClientRegistry(options.preRegistered ?? [], options.cimd ? fetchDocument : undefined, (url, error) =>
      record({ kind: "cimd-fetch", url, ok: error === undefined, ...(error !== undefined ? { error } : {}) }),
    );
    registries.push(clients);
    origin.routes.push(
      authorizationServer({
        issuer: origin.url,
        resources: served,
        defaultResource,
        dcr: options.dcr ?? true,
        cimd: options.cimd ?? false,
        oidcOnly: options.oidcOnly ?? false,
        issParameterSupported: options.issParameterSupported ?? true,
        issResponse: options.issResponse ?? "issuer",
        scopesSupported: options.asScopesSupported,
        clients,
        codes: new CodeStore(),
        tokens,
        record,
      }),
    );
  };
  for (const origin of asOrigins) addAuthorizationServer(origin, resources);

  const servers: WorldServer[] = mcpOrigins.map((origin, index) => {
    const resource = resources[index]!;
    const prmUrl = spec === "2025-03-26" ? undefined : `${origin.url}${prmLocation === "path" ? PRM_PATH : PRM_ROOT_PATH}`;
    origin.routes.push(
      protectedMcpServer({
        index,
        resource,
        spec,
        prmLocation,
        prmUrl,
        // Read at each request: `useAuthorizationServer` moves it.
        get issuer() {
          return current ?? origin.url;
        },
        challengeScope: options.challengeScope,
        openInitialize: options.openInitialize,
        scopesSupported: options.scopesSupported,
        toolScopes: options.toolScopes ?? {},
        tokens,
        record,
      }),
    );
    if (!asOrigin) addAuthorizationServer(origin, [resource], resource);
    return { url: resource, resource, ...(prmUrl ? { prmUrl } : {}) };
  });

  const origins = [...mcpOrigins, ...asOrigins];
  return {
    issuer: asOrigin?.url ?? mcpOrigins[0]!.url,
    issuers: asOrigins.length ? asOrigins.map((o) => o.url) : [mcpOrigins[0]!.url],
    useAuthorizationServer(index) {
      const origin = asOrigins[index];
      if (!origin) throw new Error(`no authorization server ${index} (2025-06-18 mode has ${asOrigins.length})`);
      current = origin.url;
    },
    servers,
    cimdUrl: cimdHost.url,
    events,
    issuedTokens: () => tokens.all(),
    clientSecrets: () => [...new Set(registries.flatMap((r) => r.secrets()))],
    revokeRefreshTokens: () => tokens.revokeRefreshTokens(),
    expireAccessTokens: () => tokens.expireAccessTokens(),
    async close() {
      await Promise.all([...origins.map((o) => closeServer(o.server)), cimdHost.close()]);
    },
  };
}
