/**
 * metatools as a library: build the app from a config, serve it on any MCP
 * transport, or call the three meta-tools directly.
 *
 * ```ts
 * import { loadConfig, createMetatools, createSessionServer } from "metatools";
 * const app = createMetatools(loadConfig({ configPath: "metatools.json" }));
 * await app.start();
 * await createSessionServer(app).connect(transport);
 * ```
 */
export { BUILTIN_CATALOG_DIR, createMetatools, type AppOptions, type Metatools } from "./app.js";
export type { Backend, BackendEvent, BackendInfo, CallOptions, ToolCallResult } from "./backends/types.js";
export { loadConfig, parseConfig, type LoadOptions } from "./config/load.js";
export type { ResolvedConfig } from "./config/resolved.js";
export type { ConfigFile } from "./config/schema.js";
export { createMetaDispatcher } from "./meta/index.js";
export type { MetaBody } from "./meta/types.js";
export type { ToolRecord, UpstreamTool } from "./model/tool.js";
export { createSessionServer } from "./serving.js";
export { serveStdio } from "./stdio/serve.js";
export { ConfigError, MetatoolsError } from "./util/errors.js";
export { createLogger, type Logger } from "./util/log.js";
