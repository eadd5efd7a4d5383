/**
 * The one fetch every OAuth request goes through, signing in (`auth
 * login`) and renewing tokens (`serve`): discovery, registration, token and
 * refresh. Each answer is read up to MAX_OAUTH_ANSWER_BYTES and no more, so
 * an authorization server that answers with 300 MB (or never stops) costs
 * one failed request, not the process; only http(s) URLs are fetched; each
 * request has a deadline. It remembers the last URL asked and what came
 * back, so a failure can name the answer that was wrong.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { boundBody, byteWords, TooLargeError } from "../util/bounded-body.js";
import { MetatoolsError } from "../util/errors.js";
import { shownUrl, type LastExchange } from "./oauth-errors.js";

/**
 * The most one answer of an authorization server or protected resource
 * (metadata, registration, tokens, an error) may hold. Real ones are a few
 * KB; a JWT access token with many claims stays well under 64 KiB. Not
 * configurable.
 */
export const MAX_OAUTH_ANSWER_BYTES = 1 << 20;

export interface OAuthFetchOptions {
  /** Longest one request may take, its answer read included. */
  timeoutMs: number;
  /** Stops every request (a person's Ctrl-C). */
  signal?: AbortSignal;
  /** "error" where no redirect is expected (a token refresh); the SDK's own handling otherwise. */
  redirect?: RequestInit["redirect"];
  /** The limit, for tests; MAX_OAUTH_ANSWER_BYTES otherwise. */
  maxBytes?: number;
}

export interface OAuthFetch {
  fetch: FetchLike;
  last: LastExchange;
}

export function oauthFetch(options: OAuthFetchOptions): OAuthFetch {
  const last: LastExchange = {};
  const maxBytes = options.maxBytes ?? MAX_OAUTH_ANSWER_BYTES;
  const fetchFn: FetchLike = async (input, init) => {
    const asked = input instanceof Request ? input.url : String(input);
    last.status = last.contentType = undefined;
    if (!URL.canParse(asked))
      throw new MetatoolsError(
        "oauth_unsafe_url",
        `"${shownUrl(asked)}" is not a URL, so it was not fetched: the server's OAuth metadata names it; tell the server's operator`,
      );
    const url = new URL(asked);
    last.url = url;
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new MetatoolsError(
        "oauth_unsafe_url",
        `${shownUrl(url)} is not an http(s) URL, so it was not fetched: the server's OAuth metadata names it; tell the server's operator`,
      );
    const signals = [AbortSignal.timeout(options.timeoutMs), options.signal, init?.signal ?? undefined].filter((s): s is AbortSignal => !!s);
    const response = await fetch(url, { ...init, ...(options.redirect ? { redirect: options.redirect } : {}), signal: AbortSignal.any(signals) });
    last.status = response.status;
    last.contentType = response.headers.get("content-type") ?? undefined;
    return boundBody(
      response,
      maxBytes,
      () =>
        new TooLargeError(
          "oauth_answer_too_large",
          `the answer of ${shownUrl(url)} was larger than ${byteWords(maxBytes)}, more than any OAuth answer needs, so it was not read further; tell the server's operator`,
          maxBytes,
        ),
    );
  };
  return { fetch: fetchFn, last };
}
