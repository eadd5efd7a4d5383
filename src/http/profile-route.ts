/**
 * Which profile an HTTP caller gets (src/security/profiles.ts): its
 * token's, or the one the path names (`/mcp/NAME`); a token that names one
 * may use no other, nor may a token that names none when the config
 * defines `default`. A session answers only the token that opened it, under
 * the same profile (server.ts keys sessions by both).
 */
import { DEFAULT_PROFILE, type Profiles } from "../security/profiles.js";
import type { Caller, Refusal } from "./guard.js";

export function profileFor(profiles: Pick<Profiles, "has" | "definesDefault">, caller: Caller, path: string): string | undefined | Refusal {
  if (path === "/mcp") return caller.profile;
  const named = safeDecode(path.slice("/mcp/".length));
  if (named === undefined || !profiles.has(named)) return { status: 404, message: `no profile "${named ?? path}" on this server; MCP is served on /mcp` };
  // A caller given no profile is held to `default` when the config defines one: the path cannot widen it.
  const bound = caller.profile ?? (profiles.definesDefault ? DEFAULT_PROFILE : undefined);
  if (bound !== undefined && bound !== named) return { status: 403, message: `this token may use profile "${bound}" only (/mcp/${bound})` };
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
