/**
 * The services as one caller's profile shows them (src/security/profiles.ts):
 * every read of the registry, search, the executor and backends' states
 * goes through the profile, so a tool outside it is in no reply (hits,
 * totals, namespace counts, suggestions, notices, instructions) and is
 * refused exactly as a tool that does not exist.
 */
import type { Profile } from "../security/profiles.js";
import type { RankOptions } from "../search/types.js";
import type { MetaServices } from "./services.js";

/** The services for a caller of profile `name` (unset: the default); a name the config lacks is refused before any call gets here. */
export function scopedFor(services: MetaServices, name: string | undefined): MetaServices {
  const profile = services.profiles?.get(name);
  if (!profile) {
    if (name !== undefined) throw new Error(`no profile "${name}"`);
    return services;
  }
  return scopeServices(services, profile);
}

export function scopeServices(services: MetaServices, profile: Profile): MetaServices {
  if (profile.open) return { ...services, profile };
  const { registry, search, executor, backends } = services;
  // One rule for what the caller sees: every read below goes through these two.
  const get = (id: string) => {
    const record = registry.get(id);
    return record && profile.sees(record) ? record : undefined;
  };
  const namespaceRecords = (namespace: string) => registry.namespaceRecords(namespace).filter((record) => profile.sees(record));
  const visible = (id: string): boolean => get(id) !== undefined;
  const seesNamespace = (namespace: string) => profile.seesNamespace(namespace, registry.namespaceRecords(namespace));
  const within = (options: RankOptions): RankOptions => {
    const accept = options.accept;
    return { ...options, accept: accept ? (id) => visible(id) && accept(id) : visible };
  };
  return {
    ...services,
    registry: {
      get,
      namespaceRecords,
      namespaces: () =>
        registry
          .namespaces()
          .map(({ namespace }) => ({ namespace, count: namespaceRecords(namespace).length }))
          .filter((n) => n.count > 0)
          .sort((a, b) => b.count - a.count || a.namespace.localeCompare(b.namespace)),
      quarantineOf: (id) => {
        const held = registry.quarantineOf(id);
        return held && profile.seesHeld(id, held.tool?.annotations) ? held : undefined;
      },
    },
    search: {
      search: (request) => search.search({ ...request, visible: request.visible ? (id) => visible(id) && request.visible!(id) : visible }),
      bm25: {
        rank: (query, options) => search.bm25.rank(query, within(options)),
        rankRelaxed: (query, options) => search.bm25.rankRelaxed(query, within(options)),
      },
      // The index's words come from every tool, hidden ones too: a caller with a narrower view gets no word suggestions.
      nearTerms: () => [],
    },
    executor: {
      accepts: (id, args) => visible(id) && executor.accepts(id, args),
      run: (request) => (visible(request.toolId) ? executor.run(request) : Promise.resolve({ kind: "unknown_tool", id: request.toolId })),
    },
    backends: {
      state: (namespace) => (seesNamespace(namespace) ? backends.state(namespace) : undefined),
      states: () => backends.states().filter((state) => seesNamespace(state.namespace)),
      whenReady: (namespace, signal) => backends.whenReady(namespace, signal),
      callTimeoutMs: (namespace) => backends.callTimeoutMs(namespace),
    },
    profile,
  };
}
