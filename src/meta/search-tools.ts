/**
 * search_tools: ranked one-line summaries with call signatures, the
 * namespace distribution of the full match set, and concrete next calls.
 */
import { z } from "zod";
import { DEFAULTS } from "../config/defaults.js";
import { ATTR } from "../observe/telemetry.js";
import { fitItems } from "../disclosure/budget.js";
import { capDistribution } from "../disclosure/guard.js";
import { formatCall, hint, warning, guidanceFields, type Guidance, type NextCall } from "../disclosure/guidance.js";
import { callSignature, saysMore } from "../model/signature.js";
import type { SearchHit, SearchOutcome, SearchRequest } from "../search/engine.js";
import { shownStatus } from "../backends/status.js";
import { personsFix, retryWords, unavailableBackends, unavailableKey } from "./status.js";
import type { MetaServices } from "./services.js";
import type { SearchHitReply, SearchReply, UnavailableBackend } from "./reply.js";
import { defineMetaTool } from "./types.js";
import { namespacesLine, NAMESPACES_TOPIC } from "./instructions.js";

/** The longest namespace or tag filter accepted: namespaces have at most 64 characters, tags are short labels; an unknown namespace is compared with every known one. */
const MAX_FILTER_CHARS = 128;
const filter = z.string().max(MAX_FILTER_CHARS);

const searchArgs = z.strictObject({
  query: z.string().describe('The task in plain words; "" lists all.'),
  limit: z.int().min(1).max(DEFAULTS.search.maxLimit).optional().describe(`Default ${DEFAULTS.search.defaultLimit}, at most ${DEFAULTS.search.maxLimit}.`),
  offset: z.int().min(0).optional(),
  namespace: z.union([filter, z.array(filter).max(20)]).optional(),
  tags: z.array(filter).max(10).optional(),
  mode: z.enum(["auto", "bm25", "semantic", "hybrid"]).optional(),
});

export const searchTools = defineMetaTool({
  name: "search_tools",
  description: "Find tools for a task: ranked summaries and call signatures (param* = required).",
  args: searchArgs,
  // Paging and tags are named by the hint that needs them (with `next`); the mode is for evaluation.
  unlisted: ["mode", "offset", "tags"],
  listedAs: {
    namespace: { type: "string" },
    limit: { type: "integer", description: `Default ${DEFAULTS.search.defaultLimit}, at most ${DEFAULTS.search.maxLimit}.` },
  },
  annotations: { title: "Search tools", readOnlyHint: true, openWorldHint: false },

  async handle(args, { services, budget, span, session, caller, changed }) {
    const query = capQuery(args.query);
    const request: SearchRequest = {
      query: query.text,
      limit: Math.min(args.limit ?? services.config.search.defaultLimit, services.config.search.maxLimit),
      offset: args.offset ?? 0,
      namespaces: (Array.isArray(args.namespace) ? args.namespace : args.namespace ? [args.namespace] : []).filter(Boolean),
      tags: (args.tags ?? []).filter(Boolean),
      mode: args.mode ?? services.config.search.mode,
      // What was learned ranks by the caller alone: one token under two profiles teaches and counts as one caller.
      principal: caller,
    };
    const outcome = await services.search.search(request);
    if (session && outcome.mode !== "browse") await services.learner?.searched(session, caller, query.text, outcome.learned);
    span?.set({ [ATTR.hits]: outcome.total, [ATTR.mode]: outcome.mode });
    // Once per session, and again when it changes: not ~100 tokens in every reply. For one that is retrying, the call to make once it is back.
    const base = baseArgs(request, services.config.search.defaultLimit);
    const unavailable = unavailableBackends(services, (namespace) => ({ tool: "search_tools", arguments: { ...base, namespace } }));
    const fresh = changed?.("unavailable", unavailableKey(unavailable)) ?? true;
    const extra: { namespaces?: string; unavailable?: UnavailableBackend[] } = unavailable.length && fresh ? { unavailable } : {};
    // The namespaces this session's instructions could not name yet (backends came up after the handshake): told once, on the reply after.
    const namespaces = namespacesLine(services);
    if (changed?.(NAMESPACES_TOPIC, namespaces)) extra.namespaces = namespaces;
    const notes = query.note ? [query.note] : [];
    const { value } = fitItems(outcome.hits, budget, (hits) => present(request, outcome, hits, extra, services, notes));
    return value;
  },
});

/** Longer queries are cut (at a word boundary): ranking needs a few words, and every extra one costs time on every tool. */
export const MAX_QUERY_CHARS = 1000;

function capQuery(query: string): { text: string; note?: string } {
  if (query.length <= MAX_QUERY_CHARS) return { text: query };
  const head = query.slice(0, MAX_QUERY_CHARS);
  const space = head.search(/\s\S*$/);
  const text = (space > MAX_QUERY_CHARS / 2 ? head.slice(0, space) : head).trimEnd();
  return {
    text,
    note: `The query is ${query.length} characters; only its first ${text.length} were used. Search with the few words that name what the tool does.`,
  };
}

function present(
  request: SearchRequest,
  outcome: SearchOutcome,
  hits: readonly SearchHit[],
  extra: { namespaces?: string; unavailable?: UnavailableBackend[] },
  services: MetaServices,
  notes: string[],
): SearchReply {
  const shown = hits.length;
  const end = request.offset + shown;
  const more = outcome.total > end;
  const byNamespace = capDistribution(outcome.byNamespace);
  const catalogOnly = hits.length > 0 && hits.every((hit) => !hit.record.runnable);
  return {
    total: outcome.total,
    shown,
    ...(request.offset ? { offset: request.offset } : {}),
    ...(more ? { next_offset: end } : {}),
    mode: outcome.mode,
    // One namespace: its count is the total.
    ...(byNamespace.entries.length > 1 || byNamespace.omitted ? { by_namespace: byNamespace.entries } : {}),
    ...(byNamespace.omitted ? { by_namespace_overflow: byNamespace.omitted } : {}),
    // Said once when it holds for every hit (a catalog-only list), not on each.
    ...(catalogOnly ? { runnable: false as const } : {}),
    hits: hits.map((hit) => formatHit(hit, services.backends.state(hit.record.namespace)?.status, catalogOnly)),
    ...(outcome.map
      ? { map: outcome.map.map(({ namespace, group, tools, more }) => ({ namespace, ...(group ? { group } : {}), tools, ...(more ? { more } : {}) })) }
      : {}),
    ...extra,
    ...guidanceFields(guide(request, outcome, shown, services, notes)),
  };
}

/** `backend`: its backend's status; a tool known from the snapshot while its backend starts says so (a call waits for it). */
function formatHit({ record }: SearchHit, backend: string | undefined, saidOnce: boolean): SearchHitReply {
  return {
    id: record.id,
    ...(saysMore(record.summary, record.name) ? { summary: record.summary } : {}),
    call: callSignature(record.name, record.inputSchema),
    ...(record.annotations.readOnlyHint ? { read_only: true } : {}),
    ...(record.annotations.destructiveHint ? { destructive: true } : {}),
    ...(record.runnable || saidOnce ? {} : { runnable: false }),
    ...(backend === "connecting" || backend === "reconnecting" ? { status: backend } : {}),
  };
}

/** One piece of guidance, naming real values from this result, in the order filter → scope → paginate. */
function guide(request: SearchRequest, outcome: SearchOutcome, shown: number, services: MetaServices, given: readonly string[]): Guidance | undefined {
  const base = baseArgs(request, services.config.search.defaultLimit);
  const notes = [...given];
  if (outcome.modeNote) notes.push(outcome.modeNote + ".");
  if (outcome.relaxed)
    notes.push(`No tool matched a word of "${request.query}" exactly (or it has only common words such as "the"); these are prefix and typo-tolerant matches.`);
  if (outcome.map?.length)
    notes.push(
      `Search is unsure of these hits: map lists where the tool may be, with its tools' names; describe one by its id (namespace:name), or search again with namespace set to one of them.`,
    );

  for (const { namespace, suggestions } of outcome.unknownNamespaces) {
    // A configured backend that is down has no tools now: said so, not that it does not exist.
    const down = services.backends.state(namespace);
    if (down && down.status !== "ready") {
      const { namespace: _scope, ...unscoped } = base;
      const next: NextCall = { tool: "search_tools", arguments: unscoped };
      const fix = personsFix(down, services);
      const when = fix ? `; ${fix}` : down.retryAt ? `; metatools tries it again at ${retryWords(down.retryAt)}, search it then` : "";
      const text = `Namespace "${namespace}" has no tools now: its backend is ${shownStatus(down)}${when}. Meanwhile, all namespaces: ${formatCall(next)}.`;
      return warning([...notes, text].join(" "), next);
    }
    const known = services.registry
      .namespaces()
      .slice(0, 8)
      .map((n) => n.namespace);
    const best = suggestions[0];
    const next: NextCall | undefined = best ? { tool: "search_tools", arguments: { ...base, namespace: best } } : undefined;
    const text = `Namespace "${namespace}" does not exist${best ? `; did you mean "${best}"? Try ${formatCall(next!)}` : ""}. Namespaces: ${known.join(", ") || "none connected"}.`;
    return warning([...notes, text].join(" "), next);
  }

  if (outcome.total === 0) {
    const terms = services.search.nearTerms(request.query);
    const filtered = request.namespaces.length || request.tags.length;
    const next: NextCall = filtered
      ? { tool: "search_tools", arguments: { query: request.query } }
      : { tool: "search_tools", arguments: { query: terms[0] ?? "" } };
    const namespaces = services.registry
      .namespaces()
      .slice(0, 6)
      .map((n) => `${n.namespace} (${n.count})`);
    const text = [
      `No tool matches "${request.query}"${filtered ? " with these filters" : ""}.`,
      terms.length ? `Indexed terms near it: ${terms.join(", ")}.` : "",
      namespaces.length ? `Namespaces: ${namespaces.join(", ")}.` : "No backend has tools yet.",
      `Try ${formatCall(next)}.`,
    ].filter(Boolean);
    return hint([...notes, ...text].join(" "), next);
  }

  const end = request.offset + shown;
  const requested = Math.min(request.limit, outcome.total - request.offset);
  if (shown < requested) {
    const next: NextCall = { tool: "search_tools", arguments: { ...base, offset: end } };
    notes.push(`Only ${shown} of the ${requested} requested hits fit the response budget; the rest start at offset ${end}: ${formatCall(next)}.`);
    return warning(notes.join(" "), next);
  }
  if (outcome.total <= end) return notes.length ? warning(notes.join(" ")) : undefined;

  // Each way on is this search with one argument changed: the first is `next`, whole; the hint names the others by what changes, so a long query is not written out three times.
  const ways: { label: string; change: Record<string, unknown> }[] = [];
  const top = outcome.hits[0]?.record;
  // A tag narrows only if some hits lack it: the top hit's first tag that not every shown hit carries.
  const tag = top?.tags.find((t) => t !== "deprecated" && outcome.hits.some((h) => !h.record.tags.includes(t)));
  if (tag && !request.tags.length && outcome.byNamespace.length === 1) ways.push({ label: `filter by tag "${tag}"`, change: { tags: [tag] } });
  // Scoping helps only when the hits shown mix namespaces: scoped to the only one shown, the same hits would come back first.
  if (!request.namespaces.length && outcome.byNamespace.length > 1 && new Set(outcome.hits.map((h) => h.record.namespace)).size > 1) {
    // The namespace with the most matches narrows the most (the top hit's may hold one); among equals, the top hit's.
    const count = outcome.byNamespace[0]!.count;
    const tied = outcome.byNamespace.some((n) => n.namespace === top?.namespace && n.count === count);
    const namespace = tied ? top!.namespace : outcome.byNamespace[0]!.namespace;
    ways.push({ label: `scope to namespace "${namespace}" (${count} matches)`, change: { namespace } });
  }
  ways.push({ label: "next page", change: { offset: end } });
  const [first, ...others] = ways;
  const next: NextCall = { tool: "search_tools", arguments: { ...base, ...first!.change } };
  const rest = others.map((w) => `${w.label}: the same with ${changeWords(w.change)}`);
  const text = `${request.offset + 1}-${end} of ${outcome.total}. ${capitalized(first!.label)}: next${rest.length ? `; ${rest.join("; ")}` : ""}.`;
  return notes.length ? warning([...notes, text].join(" "), next) : hint(text, next);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `offset: 5`, `tags: ["api"]`: an argument as a call writes it. */
function changeWords(change: Record<string, unknown>): string {
  return Object.entries(change)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join(", ");
}

/** The request's own arguments, minus defaults, so suggested calls repeat exactly what was asked. */
function baseArgs(request: SearchRequest, defaultLimit: number): Record<string, unknown> {
  return {
    query: request.query,
    ...(request.limit !== defaultLimit ? { limit: request.limit } : {}),
    ...(request.namespaces.length === 1 ? { namespace: request.namespaces[0] } : request.namespaces.length ? { namespace: request.namespaces } : {}),
    ...(request.tags.length ? { tags: request.tags } : {}),
    ...(request.mode !== "auto" ? { mode: request.mode } : {}),
  };
}
