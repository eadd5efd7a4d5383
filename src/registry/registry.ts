/**
 * The live set of tools, by namespace. Backends feed it; search, describe and
 * run read it. Allow/deny rules apply here, so a denied tool is invisible
 * everywhere at once.
 */
import type { CatalogIndex } from "../catalog/match.js";
import type { ToolRecord, UpstreamTool } from "../model/tool.js";
import { globMatcher } from "../util/glob.js";
import { buildRecord } from "./record.js";

export type RegistryListener = (namespace: string, records: readonly ToolRecord[]) => void;

export interface AccessRules {
  allow: readonly string[];
  deny: readonly string[];
}

export class ToolRegistry {
  private readonly byNamespace = new Map<string, ToolRecord[]>();
  private readonly byId = new Map<string, ToolRecord>();
  private readonly listeners: RegistryListener[] = [];
  private readonly allowed: (id: string) => boolean;

  constructor(
    private readonly catalog: CatalogIndex,
    access: AccessRules = { allow: [], deny: [] },
  ) {
    const allow = access.allow.length ? globMatcher(access.allow) : () => true;
    const deny = globMatcher(access.deny);
    this.allowed = (id) => allow(id) && !deny(id);
  }

  onChange(listener: RegistryListener): void {
    this.listeners.push(listener);
  }

  /** Replaces a namespace's tools (an empty list removes them) and notifies listeners. */
  setNamespace(namespace: string, tools: readonly UpstreamTool[], serverName: string | undefined, runnable: boolean): void {
    for (const old of this.byNamespace.get(namespace) ?? []) this.byId.delete(old.id);
    const records: ToolRecord[] = [];
    for (const tool of tools) {
      const record = buildRecord(namespace, tool, this.catalog.entriesFor(namespace, tool.name, serverName), runnable);
      if (!this.allowed(record.id) || this.byId.has(record.id)) continue;
      records.push(record);
      this.byId.set(record.id, record);
    }
    if (records.length) this.byNamespace.set(namespace, records);
    else this.byNamespace.delete(namespace);
    for (const listener of this.listeners) listener(namespace, records);
  }

  get(id: string): ToolRecord | undefined {
    return this.byId.get(id);
  }

  get size(): number {
    return this.byId.size;
  }

  records(): IterableIterator<ToolRecord> {
    return this.byId.values();
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }

  namespaceRecords(namespace: string): readonly ToolRecord[] {
    return this.byNamespace.get(namespace) ?? [];
  }

  /** Namespaces with their tool counts, largest first. */
  namespaces(): { namespace: string; count: number }[] {
    return [...this.byNamespace.entries()]
      .map(([namespace, records]) => ({ namespace, count: records.length }))
      .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace));
  }
}
