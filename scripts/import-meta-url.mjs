// Injected into the CommonJS bundle (scripts/bundle.mjs), where `__filename` is the bundle's own path:
// `import.meta.url` of every bundled module reads this.
/* global __filename */
import { pathToFileURL } from "node:url";

export const __metatoolsModuleUrl = pathToFileURL(__filename).href;
