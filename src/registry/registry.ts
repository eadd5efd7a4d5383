/**
 * The live set of tools, by namespace. Backends feed it; search, describe and
 * run read it. Allow/deny rules apply here, so a denied tool is invisible
 * everywhere at once.
 */
import type { CatalogIndex } from "../catalog/match.js";
import type { ToolRecord, UpstreamTool } from "../model/tool.js";
import { globMatcher } from "../util/glob.js";
import type { Quarantined, ToolGate } from "../security/gate.js";
import { buildRecord } from "./record.js";

export type RegistryListener = (namespace: string, records: readonly ToolRecord[]) => void;

export interface AccessRules {
  allow: readonly string[];
  deny: readonly string[];
}

export class ToolRegistry {
  private readonly byNamespace = new Map<string, ToolRecord[]>();
  private readonly byId = new Map<string, ToolRecord>();
  /** What each backend last listed, so the gate can decide again after an approval. */
  private readonly listed = new Map<string, { tools: readonly UpstreamTool[]; serverName: string | undefined; runnable: boolean }>();
  private readonly held = new Map<string, Quarantined>();
  private readonly listeners: RegistryListener[] = [];
  private readonly allowed: (id: string) => boolean;

  constructor(
    private readonly catalog: CatalogIndex,
    access: AccessRules = { allow: [], deny: [] },
    private readonly gate?: ToolGate,
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
    for (const [id, q] of this.held) if (q.namespace === namespace) this.held.delete(id);
    this.listed.set(namespace, { tools, serverName, runnable });
    // Quarantined tools are kept apart: invisible to search, refused by run, listed by quarantined().
    const gated = this.gate?.admit(namespace, tools) ?? { admitted: tools, quarantined: [] };
    for (const q of gated.quarantined) if (this.allowed(q.id)) this.held.set(q.id, q);
    const records: ToolRecord[] = [];
    for (const tool of gated.admitted) {
      const record = buildRecord(namespace, tool, this.catalog.entriesFor(namespace, tool.name, serverName), runnable);
      if (!this.allowed(record.id) || this.byId.has(record.id)) continue;
      records.push(record);
      this.byId.set(record.id, record);
    }
    if (records.length) this.byNamespace.set(namespace, records);
    else this.byNamespace.delete(namespace);
    for (const listener of this.listeners) listener(namespace, records);
  }

  /** Why a tool is quarantined, if it is. */
  quarantineOf(id: string): Quarantined | undefined {
    return this.held.get(id);
  }

  quarantined(): Quarantined[] {
    return [...this.held.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Decides every namespace again, e.g. after approvals changed the lock file; only namespaces whose outcome changes are replaced. */
  regate(): void {
    for (const [namespace, { tools, serverName, runnable }] of this.listed) {
      const before = this.quarantined().filter((q) => q.namespace === namespace).map((q) => q.id).join();
      const after = this.gate?.admit(namespace, tools).quarantined.map((q) => q.id).sort().join() ?? "";
      if (before !== after) this.setNamespace(namespace, tools, serverName, runnable);
    }
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
