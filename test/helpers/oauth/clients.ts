/**
 * The authorization server's client registry: pre-registered clients,
 * dynamic registration (RFC 7591) with strict metadata checks, and client ID
 * metadata documents (https client_id URLs whose document is fetched), plus
 * the redirect-URI matching rule (exact, except the port of loopback URIs,
 * RFC 8252 §7.3).
 */
import { randomBytes } from "node:crypto";
import { isLoopbackHost } from "./http.js";
import { opaque } from "./store.js";
import { CLIENT_AUTH_METHODS, type ClientAuthMethod, type PreRegisteredClient } from "./types.js";

export const DEFAULT_REDIRECT_URIS = ["http://127.0.0.1/callback"];

export interface Client {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method: ClientAuthMethod;
  redirect_uris: string[];
}

export type RegistrationResult = { client: Client; response: Record<string, unknown> } | { error: string; description: string };

/** Fetches a client metadata document; rejects when it cannot be had. */
export type DocumentFetcher = (url: string) => Promise<unknown>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

/** True when `presented` may be used for a client that registered `registered`. */
export function redirectUriMatches(registered: string, presented: string): boolean {
  if (registered === presented) return true;
  const a = parseUrl(registered);
  const b = parseUrl(presented);
  if (!a || !b || a.protocol !== "http:" || b.protocol !== "http:" || !isLoopbackHost(a.hostname)) return false;
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search && !b.hash && !b.username && !b.password;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** A redirect URI OAuth 2.1 allows: absolute, no fragment, and plain http only on loopback. */
function acceptableRedirectUri(value: string): boolean {
  const url = parseUrl(value);
  if (!url || url.hash || value.includes("#")) return false;
  return url.protocol !== "http:" || isLoopbackHost(url.hostname);
}

function checkRegistration(body: unknown): { error: string; description: string } | undefined {
  if (!isRecord(body)) return { error: "invalid_client_metadata", description: "the body must be a JSON object" };
  const uris = body.redirect_uris;
  if (!isStringArray(uris) || uris.length === 0) return { error: "invalid_redirect_uri", description: "redirect_uris must be a non-empty array of strings" };
  const bad = uris.find((uri) => !acceptableRedirectUri(uri));
  if (bad !== undefined) return { error: "invalid_redirect_uri", description: `unacceptable redirect URI: ${bad}` };
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && !CLIENT_AUTH_METHODS.includes(method as ClientAuthMethod)) {
    return { error: "invalid_client_metadata", description: `unsupported token_endpoint_auth_method: ${String(method)}` };
  }
  if (
    body.grant_types !== undefined &&
    !(isStringArray(body.grant_types) && body.grant_types.every((g) => g === "authorization_code" || g === "refresh_token"))
  ) {
    return { error: "invalid_client_metadata", description: "grant_types may only hold authorization_code and refresh_token" };
  }
  if (body.response_types !== undefined && !(isStringArray(body.response_types) && body.response_types.every((r) => r === "code"))) {
    return { error: "invalid_client_metadata", description: 'response_types may only hold "code"' };
  }
  return undefined;
}

/** The client a metadata document describes, or why it is refused. */
function clientFromDocument(url: string, document: unknown): Client | string {
  if (!isRecord(document)) return "the document is not a JSON object";
  if (document.client_id !== url) return "the document's client_id differs from its URL";
  if (!isStringArray(document.redirect_uris) || document.redirect_uris.length === 0) return "the document has no redirect_uris";
  const method = document.token_endpoint_auth_method ?? "none";
  if (method !== "none") return `unsupported token_endpoint_auth_method for a metadata document: ${String(method)}`;
  return { client_id: url, token_endpoint_auth_method: "none", redirect_uris: document.redirect_uris };
}

/** An https URL with a path, as client ID metadata documents require. */
function isDocumentUrl(clientId: string): boolean {
  const url = parseUrl(clientId);
  return !!url && url.protocol === "https:" && url.pathname !== "/" && !url.hash;
}

export class ClientRegistry {
  private readonly clients = new Map<string, Client>();

  constructor(
    preRegistered: PreRegisteredClient[],
    private readonly fetchDocument: DocumentFetcher | undefined,
    private readonly onDocument: (url: string, error?: string) => void,
  ) {
    for (const client of preRegistered) this.clients.set(client.client_id, { ...client, redirect_uris: client.redirect_uris ?? DEFAULT_REDIRECT_URIS });
  }

  register(body: unknown): RegistrationResult {
    const problem = checkRegistration(body);
    if (problem) return problem;
    const metadata = body as Record<string, unknown>;
    const method = (metadata.token_endpoint_auth_method as ClientAuthMethod | undefined) ?? "client_secret_basic";
    const client: Client = {
      client_id: `client-${randomBytes(8).toString("hex")}`,
      token_endpoint_auth_method: method,
      redirect_uris: metadata.redirect_uris as string[],
    };
    if (method !== "none") client.client_secret = opaque("secret");
    this.clients.set(client.client_id, client);
    const response: Record<string, unknown> = {
      ...metadata,
      ...client,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: metadata.grant_types ?? ["authorization_code", "refresh_token"],
      response_types: metadata.response_types ?? ["code"],
    };
    if (client.client_secret) response.client_secret_expires_at = 0;
    return { client, response };
  }

  /** The client with this id: registered, pre-registered, or (with CIMD) described by the document at that https URL. */
  async find(clientId: string): Promise<Client | undefined> {
    const known = this.clients.get(clientId);
    if (known || !this.fetchDocument || !isDocumentUrl(clientId)) return known;
    let outcome: Client | string;
    try {
      outcome = clientFromDocument(clientId, await this.fetchDocument(clientId));
    } catch (error) {
      outcome = `fetch failed: ${String(error)}`;
    }
    this.onDocument(clientId, typeof outcome === "string" ? outcome : undefined);
    if (typeof outcome === "string") return undefined;
    this.clients.set(clientId, outcome);
    return outcome;
  }

  secrets(): string[] {
    return [...this.clients.values()].flatMap((c) => (c.client_secret ? [c.client_secret] : []));
  }
}
