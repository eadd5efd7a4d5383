import type { SignInSession } from "../auth/session.js";
import type { BackendSpec } from "../config/resolved.js";
import { CatalogOnlyBackend } from "./catalog-only.js";
import { McpBackend } from "./mcp.js";
import type { Redact } from "../util/redact.js";
import type { ClientFeatures } from "../model/peer.js";
import type { GroupWatch } from "./reaper.js";
import type { Backend } from "./types.js";

/**
 * The backend for a config entry; `redact` cleans what it keeps of a child's stderr; `signIn` signs a remote one's requests;
 * `groups` hears of a stdio server's process group (the reaper). Built-in backends are added by the app, not here.
 */
export function createBackend(spec: BackendSpec, redact?: Redact, signIn?: SignInSession, features?: ClientFeatures, groups?: GroupWatch): Backend {
  return spec.kind === "catalog" ? new CatalogOnlyBackend(spec) : new McpBackend(spec, redact, signIn, features, groups);
}
