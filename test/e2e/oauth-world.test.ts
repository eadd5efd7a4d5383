/**
 * Self-test of the OAuth test fixtures (test/helpers/oauth, test/fixtures/oauth):
 * the SDK's own client primitives register, authorize, exchange and call the
 * protected MCP servers, and the fake browser reaches a loopback callback.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOAuthWorld, type OAuthWorld } from "../helpers/oauth/world.js";

const BROWSER = fileURLToPath(new URL("../fixtures/oauth/browser.mjs", import.meta.url));

async function callTool(url: string, token: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const client = new Client({ name: "oauth-world-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    const result = await client.callTool({ name, arguments: args });
    return (result.content as { text: string }[])[0]!.text;
  } finally {
    await client.close();
  }
}

/** Register (DCR), authorize (following the 302 by hand) and exchange, for server `index`. */
async function login(world: OAuthWorld, index: number, scope?: string) {
  const { resource } = world.servers[index]!;
  const prm = await discoverOAuthProtectedResourceMetadata(resource);
  const metadata = (await discoverAuthorizationServerMetadata(prm.authorization_servers![0]!))!;
  const clientInformation = await registerClient(world.issuer, {
    metadata,
    clientMetadata: { redirect_uris: ["http://127.0.0.1/callback"], client_name: "t" },
  });
  const redirectUrl = "http://127.0.0.1:4567/callback";
  const { authorizationUrl, codeVerifier } = await startAuthorization(world.issuer, {
    metadata,
    clientInformation,
    redirectUrl,
    scope,
    state: "st-1",
    resource: new URL(resource),
  });
  const location = new URL((await fetch(authorizationUrl, { redirect: "manual" })).headers.get("location")!);
  expect(location.searchParams.get("state")).toBe("st-1");
  const tokens = await exchangeAuthorization(world.issuer, {
    metadata,
    clientInformation,
    authorizationCode: location.searchParams.get("code")!,
    codeVerifier,
    redirectUri: redirectUrl,
    resource: new URL(resource),
  });
  return { metadata, clientInformation, tokens };
}

describe("OAuth world, 2025-06-18", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ servers: 2, toolScopes: { write_note: "notes:write" }, challengeScope: "mcp", cimd: true });
  });
  afterAll(() => world?.close());

  it("challenges an anonymous request with the PRM URL and scope", async () => {
    const res = await fetch(world.servers[0]!.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${world.servers[0]!.prmUrl}", scope="mcp"`);
  });

  it("issues tokens that work on their own server only", async () => {
    const { tokens, clientInformation } = await login(world, 0, "mcp");
    expect(clientInformation.token_endpoint_auth_method).toBe("client_secret_basic");
    expect(await callTool(world.servers[0]!.url, tokens.access_token, "echo", { text: "hi" })).toBe("hi");
    expect(await callTool(world.servers[0]!.url, tokens.access_token, "whoami")).toBe(`Bearer ${tokens.access_token}`);
    const other = await fetch(world.servers[1]!.url, { method: "POST", headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(other.status).toBe(401);
    expect(other.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
    expect(world.events).toContainEqual(
      expect.objectContaining({ kind: "token", grant_type: "authorization_code", auth_method: "client_secret_basic", status: 200 }),
    );
  });

  it("answers a scoped tool without its scope with HTTP 403 insufficient_scope", async () => {
    const { tokens } = await login(world, 0, "mcp");
    await expect(callTool(world.servers[0]!.url, tokens.access_token, "write_note", { text: "x" })).rejects.toThrow(/insufficient_scope/);
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_note", arguments: { text: "x" } } };
    const res = await fetch(world.servers[0]!.url, {
      method: "POST",
      headers: { authorization: `Bearer ${tokens.access_token}`, "content-type": "application/json" },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="mcp notes:write", resource_metadata="${world.servers[0]!.prmUrl}"`,
    );
    const scoped = await login(world, 0, "mcp notes:write");
    expect(await callTool(world.servers[0]!.url, scoped.tokens.access_token, "write_note", { text: "x" })).toBe("saved");
  });

  it("rotates refresh tokens, revokes them, and expires access tokens", async () => {
    const { metadata, clientInformation, tokens } = await login(world, 1);
    const refreshed = await refreshAuthorization(world.issuer, {
      metadata,
      clientInformation,
      refreshToken: tokens.refresh_token!,
      resource: new URL(world.servers[1]!.resource),
    });
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(refreshAuthorization(world.issuer, { metadata, clientInformation, refreshToken: tokens.refresh_token! })).rejects.toThrow(
      /invalid_grant|refresh token/i,
    );
    world.expireAccessTokens();
    expect((await fetch(world.servers[1]!.url, { method: "POST", headers: { authorization: `Bearer ${refreshed.access_token}` } })).status).toBe(401);
    world.revokeRefreshTokens();
    await expect(refreshAuthorization(world.issuer, { metadata, clientInformation, refreshToken: refreshed.refresh_token! })).rejects.toThrow();
    expect(world.issuedTokens()).toEqual(expect.arrayContaining([tokens.access_token, refreshed.refresh_token]));
  });

  it("accepts a client ID metadata document URL, and the fake browser reaches the loopback callback", async () => {
    const seen: URL[] = [];
    const callback = createServer((req, res) => {
      seen.push(new URL(req.url!, "http://127.0.0.1"));
      res.end("ok");
    });
    await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve));
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
    const metadata = (await discoverAuthorizationServerMetadata(world.issuer))!;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    const { authorizationUrl } = await startAuthorization(world.issuer, {
      metadata,
      clientInformation: { client_id: world.cimdUrl },
      redirectUrl,
      state: "st-2",
      resource: world.servers[0]!.resource,
    });
    const code = await new Promise((resolve) => spawn(process.execPath, [BROWSER, authorizationUrl.href], { stdio: "ignore" }).on("exit", resolve));
    callback.close();
    expect(code).toBe(0);
    expect(seen[0]!.searchParams.get("state")).toBe("st-2");
    expect(seen[0]!.searchParams.get("code")).toBeTruthy();
    expect(world.events).toContainEqual({ kind: "cimd-fetch", url: world.cimdUrl, ok: true });
  });
});

describe("OAuth world, 2025-03-26", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld({ spec: "2025-03-26" });
  });
  afterAll(() => world?.close());

  it("has no PRM, a bare challenge, and RFC 8414 metadata on the MCP origin", async () => {
    const { url } = world.servers[0]!;
    const origin = new URL(url).origin;
    expect(world.issuer).toBe(origin);
    const res = await fetch(url, { method: "POST" });
    expect([res.status, res.headers.get("www-authenticate")]).toEqual([401, "Bearer"]);
    expect((await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).status).toBe(404);
    const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
    });
  });
});
