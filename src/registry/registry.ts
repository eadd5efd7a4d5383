/**
 * The live set of tools, by namespace. Backends feed it; search, describe and
 * run read it. Allow/deny rules apply here, so a denied tool is invisible
 * everywhere at once, and so does the spelling of names: a name that is not
 * a valid MCP tool name is served in a safe spelling (names.ts).
 *
 * Each listed tool is made into its record (catalog applied) before the
 * gate decides on it, so the gate judges what would be served: under which
 * id, and on which terms (security/terms.ts).
 */
import type { CatalogIndex } from "../catalog/match.js";
import type { ToolRecord, UpstreamTool } from "../model/tool.js";
import { globMatcher } from "../util/glob.js";
import type { Candidate, Quarantined, ToolGate } from "../security/gate.js";
import { isDestructive } from "../security/profiles.js";
import { termsKey, termsOf } from "../security/terms.js";
import { servedNames } from "./names.js";
import { buildRecord } from "./record.js";

/** A listed tool as it would be served, for the gate. */
type Made = Candidate & { record: ToolRecord };

export interface RegistryOptions {
  /** The server name the operator gave a namespace in the config (its entry's `serverName`): catalogs match that name, and trust it. */
  serverNames?: ReadonlyMap<string, string>;
  /** Index the search hints backends offer (`search.serverWords`). Default true; either way they are pinned. */
  hints?: boolean;
}

export type RegistryListener = (namespace: string, records: readonly ToolRecord[]) => void;

export interface AccessRules {
  allow: readonly string[];
  deny: readonly string[];
  /** A server's own rules (its entry's `tools`), over its tool names. */
  byNamespace?: ReadonlyMap<string, { allow: readonly string[]; deny: readonly string[] }>;
}

export class ToolRegistry {
  private readonly byNamespace = new Map<string, ToolRecord[]>();
  private readonly byId = new Map<string, ToolRecord>();
  /** What each backend last listed, so the gate can decide again after an approval. */
  private readonly listed = new Map<string, { tools: readonly UpstreamTool[]; serverName: string | undefined; runnable: boolean; about: string }>();
  private readonly held = new Map<string, Quarantined>();
  private readonly listeners: RegistryListener[] = [];
  /** Whether access rules let a tool in, by any of its ids (the backend's spelling and the served one). */
  private readonly allowed: (...ids: string[]) => boolean;
  /** Whether its server's own rules let a tool in, by any of its names. */
  private readonly serverAllows: (namespace: string, ...names: string[]) => boolean;

  constructor(
    private readonly catalog: CatalogIndex,
    access: AccessRules = { allow: [], deny: [] },
    private readonly gate?: ToolGate,
    private readonly options: RegistryOptions = {},
  ) {
    const allow = access.allow.length ? globMatcher(access.allow) : () => true;
    const deny = globMatcher(access.deny);
    this.allowed = (...ids) => ids.some(allow) && !ids.some(deny);
    const servers = new Map(
      [...(access.byNamespace ?? [])].map(([namespace, rules]) => {
        const allowName = rules.allow.length ? globMatcher(rules.allow) : () => true;
        const denyName = globMatcher(rules.deny);
        return [namespace, (...names: string[]) => names.some(allowName) && !names.some(denyName)] as const;
      }),
    );
    this.serverAllows = (namespace, ...names) => servers.get(namespace)?.(...names) ?? true;
    gate?.onDoubt(() => this.regate());
  }

  onChange(listener: RegistryListener): void {
    this.listeners.push(listener);
  }

  /**
   * Replaces a namespace's tools (an empty list removes them) and notifies
   * listeners. `about`: what its server says of itself (about.ts), for search.
   */
  setNamespace(namespace: string, tools: readonly UpstreamTool[], serverName: string | undefined, runnable: boolean, about = ""): void {
    this.listed.set(namespace, { tools, serverName, runnable, about });
    this.place(namespace, this.gateOf(namespace, tools));
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
    for (const [namespace, { tools }] of this.listed) {
      const gated = this.gateOf(namespace, tools);
      const before = [...this.held.values()]
        .filter((q) => q.namespace === namespace)
        .map((q) => q.id)
        .sort()
        .join();
      if (
        before !==
        gated.quarantined
          .map((q) => q.id)
          .sort()
          .join()
      )
        this.place(namespace, gated);
    }
  }

  /** What the gate admits of a namespace's tools, as records; quarantined tools that access rules hide anyway are left out. */
  private gateOf(namespace: string, tools: readonly UpstreamTool[]): { admitted: readonly Made[]; quarantined: Quarantined[] } {
    const made = this.make(namespace, tools);
    const gate = this.gate;
    if (!gate) return { admitted: made, quarantined: [] };
    const gated = gate.admit(namespace, made);
    // What an approval a person gives in a session is for (meta/approval.ts): kept as text, not hashed (10,000 hashes would cost a start 50 ms).
    for (const { record, tool, terms } of gated.admitted) record.seal = `${gate.hashOf(tool)}\0${termsKey(terms)}`;
    return { admitted: gated.admitted, quarantined: gated.quarantined.filter((q) => this.allowed(q.id) && this.serverAllows(namespace, q.name)) };
  }

  /** Each tool as it would be served: its safe spelling, the catalog entries that apply, its record and its terms. */
  private make(namespace: string, tools: readonly UpstreamTool[]): Made[] {
    const { serverName, runnable } = this.listed.get(namespace)!;
    const named = this.options.serverNames?.get(namespace);
    // Catalog-only tools are the user's own data (dataset ids such as "api::Get Info"); only tools that run are respelled.
    const renamed = runnable ? servedNames(tools.map((t) => t.name)) : new Map<string, string>();
    return tools.map((upstream) => {
      const served = renamed.get(upstream.name);
      const tool = served === undefined ? upstream : { ...upstream, name: served };
      const entries = this.catalog.entriesFor(namespace, tool.name, named ?? serverName);
      const record = buildRecord(namespace, this.options.hints === false ? withoutHints(tool) : tool, entries, runnable, named !== undefined);
      if (served !== undefined) record.upstreamName = upstream.name;
      const terms = termsOf({
        server: serverName,
        readOnly: record.annotations.readOnlyHint === true,
        destructive: isDestructive(record),
        catalog: entries,
        hint: upstream.hints,
      });
      // The gate knows a tool by the object its backend listed (hashes, snapshot claims): the upstream one, not its respelling.
      return { id: record.id, tool: upstream, terms, record };
    });
  }

  /** Installs a namespace's gated tools as records; quarantined ones are kept apart: invisible to search, refused by run, listed by quarantined(). */
  private place(namespace: string, gated: { admitted: readonly Made[]; quarantined: readonly Quarantined[] }): void {
    for (const old of this.byNamespace.get(namespace) ?? []) this.byId.delete(old.id);
    for (const [id, q] of this.held) if (q.namespace === namespace) this.held.delete(id);
    for (const q of gated.quarantined) this.held.set(q.id, q);
    const records: ToolRecord[] = [];
    for (const { record, tool: upstream } of gated.admitted) {
      // Access rules may name a tool as the backend does or as it is served: either spelling allows, either denies.
      if (!this.allowed(record.id, `${namespace}:${upstream.name}`) || !this.serverAllows(namespace, record.name, upstream.name) || this.byId.has(record.id))
        continue;
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

  /** What a namespace's server says of itself (about.ts); empty when it says nothing. */
  aboutOf(namespace: string): string {
    return this.byNamespace.has(namespace) ? (this.listed.get(namespace)?.about ?? "") : "";
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

function withoutHints({ hints: _hints, ...tool }: UpstreamTool): UpstreamTool {
  return tool;
}
