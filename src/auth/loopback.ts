/**
 * The sign-in's redirect target: an HTTP listener on 127.0.0.1 (RFC 8252
 * §7.3) that takes one authorization response on /callback, checks its
 * `state` (and, through the caller's check, its `iss`, RFC 9207), and tells
 * the browser's tab how it went.
 */
import { createServer, type Server } from "node:http";
import type { SignInErrorCode } from "../model/error-codes.js";
import { MetatoolsError } from "../util/errors.js";

/** A sign-in that could not finish, with a code of `SignInErrorCode`'s (src/model/error-codes.ts), which callers branch on. */
export class SignInError extends MetatoolsError {
  declare readonly code: SignInErrorCode;

  constructor(code: SignInErrorCode, message: string) {
    super(code, message);
    this.name = "SignInError";
  }
}

/** Looks at an answer's `iss` (undefined when absent): an error ends the sign-in with it, before the code is used. */
export type IssuerCheck = (iss: string | undefined) => SignInError | undefined;

export interface Loopback {
  /** http://127.0.0.1:PORT/callback */
  readonly redirectUrl: string;
  readonly port: number;
  /**
   * The authorization code, once a response with this `state` arrives; its
   * `iss` (RFC 9207), present or not, is handed to `checkIssuer` before the
   * code is taken. Rejects on a refusal, a wrong state, an `iss` refused, the
   * timeout, `signal` or `close`. Call it before the browser is sent off, so
   * no answer comes before anyone waits.
   */
  code(state: string, timeoutMs: number, signal?: AbortSignal, onRefused?: (why: string) => void, checkIssuer?: IssuerCheck): Promise<string>;
  close(): Promise<void>;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h2>${title}</h2><p>${text}</p></body>`;

/** Listens on `port` (0: any free one). */
export async function listenLoopback(port: number): Promise<Loopback> {
  let deliver: ((url: URL) => { ok: boolean; text: string }) | undefined;
  let cancel: (() => void) | undefined;
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const outcome = deliver?.(url) ?? { ok: false as const, text: "No sign-in is waiting for this answer; start one with metatools auth login." };
    response.writeHead(outcome.ok ? 200 : 400, { "content-type": "text/html; charset=utf-8" });
    response.end(PAGE(outcome.ok ? "Signed in" : "Sign-in failed", escapeHtml(outcome.text)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new SignInError(
          "callback_port",
          error.code === "EADDRINUSE"
            ? `port ${port} on 127.0.0.1 is taken, so the sign-in's callback cannot listen there: free it, or change the backend's oauth.callbackPort`
            : `cannot listen on 127.0.0.1:${port}: ${error.message}`,
        ),
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    port: bound,
    code(state, timeoutMs, signal, onRefused, checkIssuer) {
      return new Promise<string>((resolve, reject) => {
        let refused = 0;
        const timer = setTimeout(() => {
          const also = refused
            ? `; ${refused} answer${refused === 1 ? "" : "s"} with a state not this sign-in's came and ${refused === 1 ? "was" : "were"} refused (a stale tab, or a page that is not the sign-in's)`
            : "";
          finish(
            new SignInError(
              "signin_timeout",
              `no answer from the browser within ${Math.round(timeoutMs / 1000)} s${also}; run the command again, and finish signing in within that time`,
            ),
          );
        }, timeoutMs);
        const onAbort = () => finish(new SignInError("signin_cancelled", "sign-in cancelled"));
        signal?.addEventListener("abort", onAbort, { once: true });
        cancel = onAbort;
        function finish(error: Error | undefined, code?: string): void {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          deliver = undefined;
          cancel = undefined;
          if (error) reject(error);
          else resolve(code!);
        }
        deliver = (url) => {
          const got = url.searchParams;
          if (got.get("state") !== state) {
            // Refused, and the sign-in goes on waiting: any page in the browser can send a request here, and must not end it.
            refused++;
            onRefused?.(
              "an answer came back with a state that is not this sign-in's (a stale tab, or a page that is not the sign-in's): its code was not used; still waiting for the right one",
            );
            return { ok: false, text: "This answer does not belong to the sign-in that is waiting, so it was refused." };
          }
          // The answer's issuer (RFC 9207) is checked before anything else is used: a refusal without one ends the sign-in all the same.
          const iss = got.get("iss") ?? undefined;
          const error = got.get("error");
          const wrongIssuer = error && iss === undefined ? undefined : checkIssuer?.(iss);
          if (wrongIssuer) {
            finish(wrongIssuer);
            return { ok: false, text: "This answer does not come from the authorization server the sign-in was sent to, so it was not used." };
          }
          if (error) {
            const description = got.get("error_description");
            finish(new SignInError("signin_refused", `the authorization server refused the sign-in: ${error}${description ? ` (${description})` : ""}`));
            return { ok: false, text: `The authorization server said: ${error}${description ? ` (${description})` : ""}.` };
          }
          const code = got.get("code");
          if (!code) {
            finish(new SignInError("signin_refused", "the browser came back without an authorization code"));
            return { ok: false, text: "No authorization code came back." };
          }
          finish(undefined, code);
          return { ok: true, text: "metatools has the sign-in. You can close this tab." };
        };
      });
    },
    close: () => {
      cancel?.();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}
