/**
 * Finds the catalog entries that document a tool. An entry's `match` is a tool
 * name (any namespace) or, when it holds a colon, a full id; either may be a
 * glob. A file-level `server` glob limits entries to backends whose MCP
 * serverInfo.name matches, so docs follow a server whatever its namespace.
 */
import { globTester, isGlob } from "../util/glob.js";
import type { LoadedEntry } from "./load.js";

interface Compiled {
  entry: LoadedEntry;
  order: number;
  specific: boolean;
  byId: boolean;
  test: (value: string) => boolean;
  server?: (value: string) => boolean;
}

export class CatalogIndex {
  private readonly compiled: Compiled[];
  /** Entries naming one tool exactly, by the name or id they match: looked up, not tested one by one against 10,000 tools. */
  private readonly exact = new Map<string, Compiled[]>();
  private readonly globs: Compiled[];

  constructor(entries: readonly LoadedEntry[]) {
    this.compiled = entries.map((entry, order) => {
      const glob = isGlob(entry.match);
      const matches = glob ? globTester(entry.match) : undefined;
      return {
        entry,
        order,
        specific: !glob,
        byId: entry.match.includes(":"),
        test: matches ?? ((value: string) => value === entry.match),
        server: entry.server ? globTester(entry.server) : undefined,
      };
    });
    for (const c of this.compiled.filter((c) => c.specific)) {
      const key = `${c.byId ? "id" : "name"}\0${c.entry.match}`;
      this.exact.set(key, [...(this.exact.get(key) ?? []), c]);
    }
    this.globs = this.compiled.filter((c) => !c.specific);
  }

  get size(): number {
    return this.compiled.length;
  }

  /** Entries for one tool, least specific first, so later ones override: globs before exact names, then file order. */
  entriesFor(namespace: string, name: string, serverName: string | undefined): LoadedEntry[] {
    const id = `${namespace}:${name}`;
    const named = [...(this.exact.get(`name\0${name}`) ?? []), ...(this.exact.get(`id\0${id}`) ?? [])];
    const matched = this.globs.length ? [...named, ...this.globs.filter((c) => c.test(c.byId ? id : name))] : named;
    if (!matched.length) return [];
    return matched
      .filter((c) => (c.server ? serverName !== undefined && c.server(serverName) : true))
      .sort((a, b) => Number(a.specific) - Number(b.specific) || Number(a.byId) - Number(b.byId) || a.order - b.order)
      .map((c) => c.entry);
  }
}
