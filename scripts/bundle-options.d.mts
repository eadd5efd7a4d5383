import type { BuildOptions } from "esbuild";

/** How the command is bundled (bundle-options.mjs). */
export declare const bundleOptions: BuildOptions & { entryPoints: string[]; outfile: string };

/** The bundle's text in ASCII: every code unit past it as a \u escape (bundle-options.mjs). */
export declare function asciiOnly(text: string): string;
