/**
 * Principals: who a call is made for. What a call leaves behind (an output
 * handle; a cached result, unless `metatools.cache.shareAcrossPrincipals`)
 * is found again only by the same principal. A principal is an opaque,
 * non-secret string: it ends up in store keys, shared by every replica, so
 * it must be the same on every replica and after a restart, and must not
 * give a bearer token away.
 */
import { scryptSync } from "node:crypto";

/** stdio and the CLI: the one user who started the process. */
export const LOCAL_PRINCIPAL = "local";

/** HTTP without tokens: nobody can be told apart, so all callers are one. */
export const ANONYMOUS_PRINCIPAL = "anonymous";

/**
 * The principal of a bearer token. Derived from the token itself, not its
 * place in the list, so that removing one token from the config never hands
 * its handles to the next; derived slowly (scrypt), so that someone who can
 * read the store cannot test guesses of a weak token against it quickly.
 * Computed once per configured token, at start.
 */
export function tokenPrincipal(token: string): string {
  return `token:${scryptSync(token, "metatools principal v1", 16, { N: 1 << 14, r: 8, p: 1 }).toString("base64url")}`;
}

/** The principal of a token given a name (metatools.http.tokens `{token, name}`): `@` is no hash's character, so a name never reads as another token's hash. */
export function namedPrincipal(name: string): string {
  return `token:@${name}`;
}
