/**
 * A CommonJS dependency read at its first use instead of at start. A CLI
 * search answered from the snapshot never validates a backend's arguments,
 * never parses YAML and never compiles an agent's regular expression, yet
 * ajv, yaml and RE2JS are a third of the code it would load (each 10–30 ms
 * to read and compile). The bundle leaves such a module out; it is
 * required from node_modules, where the package's dependencies are.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** A getter that requires `specifier` the first time it is called, then returns the same module. */
export function lazyRequire<T>(specifier: string): () => T {
  let module: T | undefined;
  return () => (module ??= load(specifier) as T);
}
