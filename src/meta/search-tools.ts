/**
 * search_tools: ranked one-line summaries with call signatures, the
 * namespace distribution of the full match set, and concrete next calls.
 */
import * as z from "zod";
import { DEFAULTS } from "../config/defaults.js";
import { ATTR } from "../observe/telemetry.js";
import { fitItems } from "../disclosure/budget.js";
import { capDistribution } from "../disclosure/guard.js";
import { guidanceFields } from "../disclosure/guidance.js";
import { callSignature, saysMore } from "../model/signature.js";
import type { SearchHit, SearchOutcome, SearchRequest } from "../search/engine.js";
import { unavailableBackends, unavailableKey } from "./status.js";
import type { MetaServices } from "./services.js";
import type { SearchHitReply, SearchReply, UnavailableBackend } from "./reply.js";
import { defineMetaTool } from "./types.js";
import { baseArgs, guide } from "./search-guide.js";
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
