/**
 * OAuth failures in a person's terms. The MCP SDK throws what it meets as
 * it is: a zod error listing every issue of a metadata document, "Protected
 * resource X does not match expected Y", a JSON syntax error, an OAuth
 * error whose text quotes the server's whole answer. Each becomes one
 * `OAuthProblem`, with a code to branch on and a short message that names
 * the answer that was wrong and what to do; never a stack trace, and never
 * more of the server's text than a line.
 */
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthProblemCode } from "../model/error-codes.js";
import { MetatoolsError } from "../util/errors.js";
import { theirsInline } from "../security/outside.js";

export type { OAuthProblemCode };

/** What was last asked and answered (kept by oauthFetch), for messages. */
export interface LastExchange {
  url?: URL;
  status?: number;
  contentType?: string;
}

export class OAuthProblem extends MetatoolsError {
  declare readonly code: OAuthProblemCode;
  constructor(code: OAuthProblemCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "OAuthProblem";
  }
}

/** Most of a remote party's text quoted in a message. */
const QUOTE_CHARS = 200;
/**
 * `error` as an OAuthProblem. One already made, and a MetatoolsError of the
 * flow's own (its message already says what to do), are kept as they are;
 * the fetch layer's (`oauth_…` codes) are told in context. `doing` says what
 * failed ("notes: signing in"); `last` is what was last fetched.
 */
export function oauthFailure(error: unknown, doing: string, last: LastExchange = {}): MetatoolsError {
  if (error instanceof OAuthProblem || (error instanceof MetatoolsError && !error.code.startsWith("oauth_"))) return error;
  const at = last.url ? shownUrl(last.url) : "the server";
  const [code, why] = explain(error, at, last);
  return new OAuthProblem(code, `${doing}: ${why}`, { cause: error });
}

function explain(error: unknown, at: string, last: LastExchange): [OAuthProblemCode, string] {
  if (error instanceof MetatoolsError) return [error.code as OAuthProblemCode, error.message];
  if (error instanceof OAuthError) {
    // The SDK's stand-in for an error answer that is not an OAuth error: "HTTP 400: Invalid OAuth error response: … Raw body: …".
    const status = /^HTTP (\d+): (Invalid OAuth error response)?/.exec(error.message);
    if (status?.[2])
      return [
        "oauth_refused",
        `${at} answered HTTP ${status[1]} without an OAuth error saying why${last.contentType ? ` (${quote(last.contentType)})` : ""}; tell the server's operator`,
      ];
    const description = quote(error.message);
    return [
      "oauth_refused",
      `${at} refused: ${error.errorCode ?? "an error"}${description ? ` (${description})` : ""}${error.errorCode === "server_error" ? "; it may work later" : ""}`,
    ];
  }
  if (!(error instanceof Error)) return ["signin_failed", quote(String(error))];
  const mismatch = /^Protected resource (.*) does not match expected (.*?)(?: \(or origin\))?$/s.exec(error.message);
  if (mismatch)
    return [
      "oauth_resource_mismatch",
      `the server's protected-resource metadata is for ${quote(mismatch[1]!)}, not for ${quote(mismatch[2]!)}, so its sign-in was not used (a token for one resource must not be sent to another); check the URL in the config, or tell the server's operator`,
    ];
  if (error.name === "ZodError" && Array.isArray((error as { issues?: unknown }).issues)) {
    const issues = (error as unknown as { issues: { path: PropertyKey[]; message: string }[] }).issues;
    const listed = issues
      .slice(0, 3)
      .map((i) => `${i.path.map(String).join(".") || "(the whole answer)"}: ${quote(i.message)}`)
      .join("; ");
    const more = issues.length > 3 ? ` and ${issues.length - 3} more` : "";
    const unsafe = issues.some((i) => /cannot use javascript:/.test(i.message));
    return [
      unsafe ? "oauth_unsafe_url" : "oauth_bad_answer",
      unsafe
        ? `${at} names an endpoint that is not an http(s) URL (${listed}${more}), so nothing was opened or fetched; tell the server's operator`
        : `the answer of ${at} is not what OAuth expects (${listed}${more}); tell the server's operator`,
    ];
  }
  if ((error as { code?: unknown }).code === "ERR_INVALID_URL") {
    const input = (error as { input?: unknown }).input;
    return ["oauth_unsafe_url", `${typeof input === "string" ? `"${quote(input)}"` : "a URL the server named"} is not a URL; tell the server's operator`];
  }
  if (error instanceof SyntaxError)
    return ["oauth_bad_answer", `the answer of ${at} is not JSON${last.contentType ? ` (it was ${quote(last.contentType)})` : ""}; tell the server's operator`];
  if (error.name === "TimeoutError") return ["oauth_unreachable", `${at} did not answer in time`];
  if (error.name === "AbortError") return ["oauth_unreachable", `stopped while waiting for ${at}`];
  if (error instanceof TypeError && error.message === "fetch failed") {
    const cause = error.cause instanceof Error ? error.cause.message : "";
    return ["oauth_unreachable", `${at} cannot be reached${cause ? `: ${quote(cause)}` : ""}`];
  }
  if (error instanceof RangeError) return ["oauth_bad_answer", `the answer of ${at} could not be read (${quote(error.message)}); tell the server's operator`];
  return ["signin_failed", `${quote(error.message)}${last.status && last.status >= 400 ? ` (${at} answered HTTP ${last.status})` : ""}`];
}

/**
 * Every endpoint discovery found is http(s). The SDK refuses `javascript:`
 * and `data:`; a `file:` or `ftp:` sign-in page would be handed to the
 * browser opener, and a token endpoint anywhere but the web makes no sense.
 */
export function refuseUnsafeEndpoints(namespace: string, discovery: OAuthDiscoveryState): void {
  const server = discovery.authorizationServerMetadata;
  const named: [string, string | undefined][] = [
    ["authorization server", String(discovery.authorizationServerUrl)],
    ["authorization_endpoint", server?.authorization_endpoint],
    ["token_endpoint", server?.token_endpoint],
    ["registration_endpoint", server?.registration_endpoint],
  ];
  for (const [what, url] of named) {
    if (url === undefined || /^https?:$/.test(protocolOf(url))) continue;
    throw new OAuthProblem(
      "oauth_unsafe_url",
      `${namespace}: signing in: the server's OAuth metadata names ${shownUrl(url)} as its ${what}, which is not an http(s) URL, so nothing was opened or fetched; tell the server's operator`,
    );
  }
}

function protocolOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return "";
  }
}

/** A URL as messages show it: no user, password, query or fragment (they may carry secrets), cut to a line. */
export function shownUrl(url: URL | string): string {
  try {
    const shown = new URL(url);
    shown.username = shown.password = shown.search = shown.hash = "";
    return quote(shown.href);
  } catch {
    return quote(String(url));
  }
}

/** A remote party's text on one line, cut to QUOTE_CHARS. */
function quote(text: string): string {
  return theirsInline(text, QUOTE_CHARS);
}
