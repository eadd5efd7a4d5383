import type { BackendSpec } from "../config/resolved.js";
import { CatalogOnlyBackend } from "./catalog-only.js";
import { McpBackend } from "./mcp.js";
import type { Redact } from "../util/redact.js";
import type { Backend } from "./types.js";

/** The backend for a config entry; `redact` cleans what it keeps of a child's stderr. Built-in backends are added by the app, not here. */
export function createBackend(spec: BackendSpec, redact?: Redact): Backend {
  return spec.kind === "catalog" ? new CatalogOnlyBackend(spec) : new McpBackend(spec, redact);
}
