import { readFileSync } from "node:fs";

/** The package version, from the package.json beside `dist/` (or `src/` under a TS runner). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}
