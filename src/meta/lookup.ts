/**
 * Unknown tool ids never dead-end: the closest ids, best first, with a ready call.
 */
import type { MetaServices } from "./services.js";
import { formatCall, hint, recoverable, warning, type NextCall, type QuarantineNote, type Refusal } from "../disclosure/guidance.js";
import { namespaceOf, splitToolId } from "../model/tool.js";
import { nearest } from "../text/suggest.js";
import { backendDown } from "./backend-down.js";
import type { Quarantined } from "../security/gate.js";

const SUGGESTIONS = 3;

/**
 * The longest `tool_id` the meta-tools accept: a valid id is at most 193
 * characters (a namespace of 64, `:`, a name of 128), so this leaves room
 * for typos while bounding the work of suggesting ids for one.
 */
export const MAX_TOOL_ID_CHARS = 256;

/**
 * Ids close to `id`: same name in another namespace, typos within its
 * namespace, then words in common. Only the first MAX_TOOL_ID_CHARS of an
 * id are looked at, whoever calls: no tool's id is longer.
 */
export function suggestIds(services: MetaServices, id: string): string[] {
  const probe = id.slice(0, MAX_TOOL_ID_CHARS);
  const parts = splitToolId(probe);
  const name = parts?.name ?? probe.replace(/^[^:]*:/, "");
  const found: string[] = [];
  const add = (ids: Iterable<string>) => {
    for (const candidate of ids) if (!found.includes(candidate) && candidate !== id) found.push(candidate);
  };
  const namespaces = services.registry.namespaces().map((n) => n.namespace);
  const namespace = parts && namespaces.includes(parts.namespace) ? parts.namespace : parts ? nearest(parts.namespace, namespaces, 1, 0.5)[0] : undefined;
  add(namespaces.filter((ns) => services.registry.get(`${ns}:${name}`)).map((ns) => `${ns}:${name}`));
  if (namespace) {
    const names = services.registry.namespaceRecords(namespace).map((r) => r.name);
    add(nearest(name, names, SUGGESTIONS, 0.4).map((n) => `${namespace}:${n}`));
  }
  if (found.length < SUGGESTIONS) {
    const words = name.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/[_\-.:/]+/g, " ");
    const options = { namespaces: namespace ? new Set([namespace]) : undefined, top: SUGGESTIONS };
    let ranked = services.search.bm25.rank(words, options);
    if (!ranked.total) ranked = services.search.bm25.rankRelaxed(words, { top: SUGGESTIONS });
    add(ranked.hits.map((r) => r.id));
  }
  return found.slice(0, SUGGESTIONS);
}

/**
 * A quarantined tool: held until a person reviews it, which the agent cannot
 * do. Says what kind of hold (changed since pinned, or flagged by the
 * scanner, by rule name) and the commands the person runs, and nothing of
 * the held definition, not even the scanner's quotes: they may carry the
 * very injection that got it held.
 */
function waitingForPerson(id: string, held: Quarantined): Refusal {
  const rules = [...new Set(held.findings.map((f) => f.rule))].join(", ");
  // A changed tool's reason is metatools' own words (when it was pinned); a flagged one's quotes the definition, so only the rules are named.
  const why =
    held.kind === "flagged"
      ? `its definition looks like tool poisoning to the scanner (${rules})`
      : `${held.reason}${rules ? `, and the scanner flags the new definition (${rules})` : ""}; a changed definition can carry new instructions`;
  const note = quarantineNote(id, held);
  return recoverable(
    "quarantined",
    `Tool "${id}" is quarantined: ${why}. It is waiting for a person to review it.`,
    warning(
      `Do not try to reach it another way; you cannot approve it. Ask the user to review it: \`${note.review}\` shows its definition${held.kind === "changed" ? " and what changed" : " and what the scanner found"}, then \`${note.approve}\` lets it in. Search for another tool meanwhile.`,
    ),
    { quarantine: note },
  );
}

/** What a reply says of a quarantined tool, as data: the kind of hold, that a person must act, and the commands they run. */
export function quarantineNote(id: string, held: Quarantined): QuarantineNote {
  return { kind: held.kind, waiting_for: "person", review: `metatools approve --show ${id}`, approve: `metatools approve ${id}` };
}

/**
 * The recoverable reply for an unknown id; `retry` builds the same call with
 * a suggested id, `again` is the call as made (for a backend that is down).
 */
export function unknownTool(services: MetaServices, id: string, retry: (suggestion: string) => NextCall, again: NextCall = retry(id)): Refusal {
  const held = services.registry.quarantineOf(id);
  if (held) return waitingForPerson(id, held);
  // Its backend is known but has no tools now: say why (and whether a person must act), not that the tool does not exist, and suggest nothing unrelated.
  const namespace = namespaceOf(id) ?? "";
  const down = services.backends.state(namespace);
  // A backend not started here (the CLI reads the snapshot) whose tools are known: the id is not among them, as a running one would say.
  const known = down?.status === "idle" && down.fromSnapshot === true && services.registry.namespaceRecords(namespace).length > 0;
  if (down && down.status !== "ready" && !known) return backendDown(services, id, namespace, down, again);
  const suggestions = suggestIds(services, id);
  if (!suggestions.length) {
    const next: NextCall = { tool: "search_tools", arguments: { query: id.replace(/^[^:]*:/, "").replace(/[_\-.]+/g, " ") } };
    return recoverable("unknown_tool", `No tool "${id}".`, hint(`Search for it: ${formatCall(next)}`, next));
  }
  const next = retry(suggestions[0]!);
  return recoverable(
    "unknown_tool",
    `No tool "${id}".`,
    hint(`Did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}? Ready call: ${formatCall(next)}`, next),
    { did_you_mean: suggestions },
  );
}
