/**
 * What the bin (dist/cli.mjs) runs: a stdio client's handshake answered
 * first, from this launch's last answer (quick-start.ts), then the bundled
 * command (code-cache.ts). Reading the bundle takes tens of milliseconds a
 * client would otherwise wait for its `initialize`. Imports Node, argv.ts,
 * quick-start.ts and code-cache.ts only.
 */
import { commandFirst, startsServer } from "./argv.js";
import { runBundle } from "./code-cache.js";

export async function start(bundle: string, argv: string[] = process.argv.slice(2)): Promise<void> {
  const [name, ...rest] = commandFirst(argv);
  if (startsServer(name, rest)) await (await import("./quick-start.js")).quickStart(rest);
  runBundle(bundle);
}
