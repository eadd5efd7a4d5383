import type { BuildOptions } from "esbuild";

/** How the command is bundled (bundle-options.mjs). */
export declare const bundleOptions: BuildOptions & { entryPoints: string[]; outfile: string };
