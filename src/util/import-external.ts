/**
 * import() of a package the bundle leaves out (optional peers, tree-sitter,
 * exporters) or of a module named at run time. The bundled command runs as
 * a script compiled by node:vm (cli/code-cache.ts), where Node 20 refuses
 * import(); its starter puts an import() of its own under IMPORT_HOOK.
 * From the sources and the compiled files, this is plain import().
 */
export const IMPORT_HOOK = Symbol.for("metatools.import");

export function importExternal<T = unknown>(specifier: string): Promise<T> {
  const hook = (globalThis as Record<symbol, unknown>)[IMPORT_HOOK] as ((specifier: string) => Promise<unknown>) | undefined;
  return (hook ? hook(specifier) : import(specifier)) as Promise<T>;
}
