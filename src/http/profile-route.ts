/**
 * Which profile an HTTP caller gets (src/security/profiles.ts): its
 * token's, or the one the path names (`/mcp/NAME`); a token that names one
 * may use no other. A session answers only the token that opened it, under
 * the same profile (server.ts keys sessions by both).
 */
import type { Profiles } from "../security/profiles.js";
import type { Caller, Refusal } from "./guard.js";

export function profileFor(profiles: Pick<Profiles, "has">, caller: Caller, path: string): string | undefined | Refusal {
  if (path === "/mcp") return caller.profile;
  const named = safeDecode(path.slice("/mcp/".length));
  if (named === undefined || !profiles.has(named)) return { status: 404, message: `no profile "${named ?? path}" on this server; MCP is served on /mcp` };
  if (caller.profile !== undefined && caller.profile !== named)
    return { status: 403, message: `this token may use profile "${caller.profile}" only (/mcp/${caller.profile})` };
  return named;
}

/** A path segment decoded, or undefined when it is not valid percent-encoding. */
function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
