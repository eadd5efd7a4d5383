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
  }

  get size(): number {
    return this.compiled.length;
  }

  /** Entries for one tool, least specific first, so later ones override: globs before exact names, then file order. */
  entriesFor(namespace: string, name: string, serverName: string | undefined): LoadedEntry[] {
    const id = `${namespace}:${name}`;
    return this.compiled
      .filter((c) => (c.server ? serverName !== undefined && c.server(serverName) : true) && c.test(c.byId ? id : name))
      .sort((a, b) => Number(a.specific) - Number(b.specific) || Number(a.byId) - Number(b.byId) || a.order - b.order)
      .map((c) => c.entry);
  }
}
