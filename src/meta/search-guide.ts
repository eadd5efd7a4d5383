/**
 * search_tools' guidance: one hint or warning naming real values from the
 * result, in the order filter → scope → paginate, and the `next` call.
 */
import { formatArgs, formatCall, hint, warning, type Guidance, type NextCall } from "../disclosure/guidance.js";
import type { SearchOutcome, SearchRequest } from "../search/engine.js";
import type { BackendState } from "../backends/manager.js";
import { shownStatus } from "../backends/status.js";
import { escapeRegExp } from "../util/glob.js";
import { personsFix, retryWords } from "./status.js";
import type { MetaServices } from "./services.js";

/** One piece of guidance, naming real values from this result, in the order filter → scope → paginate. */
export function guide(request: SearchRequest, outcome: SearchOutcome, shown: number, services: MetaServices, given: readonly string[]): Guidance | undefined {
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

  // The request names a namespace whose backend is down: the tool it wants is likely there, not among these hits.
  const named = request.namespaces.length ? undefined : downNamed(request.query, services);
  if (named) {
    const fix = personsFix(named, services);
    const when = fix ? `; ${fix}` : named.retryAt ? `; metatools tries it again at ${retryWords(named.retryAt)}` : "";
    notes.unshift(`The request names "${named.namespace}", whose backend is ${shownStatus(named)}, so its tools are missing from these hits${when}.`);
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
  if (!named && !request.namespaces.length && outcome.byNamespace.length > 1 && new Set(outcome.hits.map((h) => h.record.namespace)).size > 1) {
    // The namespace with the most matches narrows the most (the top hit's may hold one); among equals, the top hit's.
    const count = outcome.byNamespace[0]!.count;
    const tied = outcome.byNamespace.some((n) => n.namespace === top?.namespace && n.count === count);
    const namespace = tied ? top!.namespace : outcome.byNamespace[0]!.namespace;
    ways.push({ label: `scope to namespace "${namespace}" (${count} matches)`, change: { namespace } });
  }
  ways.push({ label: "next page", change: { offset: end } });
  const [first, ...others] = ways;
  const next: NextCall = { tool: "search_tools", arguments: { ...base, ...first!.change } };
  const rest = others.map((w) => `${w.label}: the same with ${formatArgs(w.change)}`);
  const text = `${request.offset + 1}-${end} of ${outcome.total}. ${capitalized(first!.label)}: next${rest.length ? `; ${rest.join("; ")}` : ""}.`;
  return notes.length ? warning([...notes, text].join(" "), next) : hint(text, next);
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first backend not serving whose namespace the query says as a word ("create a github issue": github). */
function downNamed(query: string, services: MetaServices): BackendState | undefined {
  const text = query.toLowerCase();
  return services.backends
    .states()
    .find((s) => s.status !== "ready" && !s.fromSnapshot && new RegExp(`(^|[^a-z0-9])${escapeRegExp(s.namespace.toLowerCase())}($|[^a-z0-9])`).test(text));
}

/** The request's own arguments, minus defaults, so suggested calls repeat exactly what was asked. */
export function baseArgs(request: SearchRequest, defaultLimit: number): Record<string, unknown> {
  return {
    query: request.query,
    ...(request.limit !== defaultLimit ? { limit: request.limit } : {}),
    ...(request.namespaces.length === 1 ? { namespace: request.namespaces[0] } : request.namespaces.length ? { namespace: request.namespaces } : {}),
    ...(request.tags.length ? { tags: request.tags } : {}),
    ...(request.mode !== "auto" ? { mode: request.mode } : {}),
  };
}
