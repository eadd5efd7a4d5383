import type { TokenSigner } from "../auth/signer.js";
import type { BackendSpec } from "../config/resolved.js";
import { CatalogOnlyBackend } from "./catalog-only.js";
import { LazyMcpBackend } from "./lazy-mcp.js";
import type { Redact } from "../util/redact.js";
import type { ClientFeatures } from "../model/peer.js";
import type { GroupWatch } from "./reaper.js";
import type { Backend } from "./types.js";

/** What a backend may be opened with; see createBackend. */
interface OpenWith {
  redact?: Redact;
  signIn?: TokenSigner;
  features?: ClientFeatures;
  groups?: GroupWatch;
}

/** How each configured kind is opened (its traits are in model/transport-kinds.ts); the stdio and remote ones speak MCP, each over its transport (transports.ts), their code loaded at the first connect (lazy-mcp.ts). */
const OPEN: { [K in BackendSpec["kind"]]: (spec: BackendSpec & { kind: K }, use: OpenWith) => Backend } = {
  stdio: (spec, use) => new LazyMcpBackend(spec, use.redact, use.signIn, use.features, use.groups),
  http: (spec, use) => new LazyMcpBackend(spec, use.redact, use.signIn, use.features, use.groups),
  sse: (spec, use) => new LazyMcpBackend(spec, use.redact, use.signIn, use.features, use.groups),
  catalog: (spec) => new CatalogOnlyBackend(spec),
};

/**
 * The backend for a config entry; `redact` cleans what it keeps of a child's stderr; `signIn` signs a remote one's requests;
 * `groups` hears of a stdio server's process group (the reaper). Built-in backends are added by the app, not here.
 */
export function createBackend(spec: BackendSpec, redact?: Redact, signIn?: TokenSigner, features?: ClientFeatures, groups?: GroupWatch): Backend {
  // TypeScript cannot correlate spec.kind with its opener's parameter; the table's type checks each row.
  return (OPEN[spec.kind] as (spec: BackendSpec, use: OpenWith) => Backend)(spec, { redact, signIn, features, groups });
}
