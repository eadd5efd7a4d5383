/**
 * code:symbols results for a pattern search or an exact name_path lookup:
 * one line per symbol, bodies for the first five when asked, `by_file` over
 * every match, and narrowing calls built from the matches themselves.
 */
import type { Body } from "../../builtin/backend.js";
import { formatCall, guidanceFields, hint } from "../../disclosure/guidance.js";
import { distribution, type Narrowing, type OutputGuard } from "../../disclosure/guard.js";
import { codeCall, type CodeContext } from "../context.js";
import { bodies, type Located } from "../outline.js";
import type { Target } from "../workspace.js";
import type { SymbolsArgs } from "./symbols-args.js";

export const PATTERN_CAP = 50;
/** Bodies are sent for this many results at most, whatever the page size. */
export const BODY_CAP = 5;
const BODY_BYTES = 4000;

export interface MatchRequest {
  args: SymbolsArgs;
  base: Body;
  start: Target;
  guard: OutputGuard;
  matches: Located[];
  note?: string;
}

export async function presentMatches(context: CodeContext, request: MatchRequest): Promise<Body> {
  const { args, base, start, guard, matches, note } = request;
  const exact = args.name_path !== undefined;
  if (!matches.length) return noMatch(context, request);
  const withBodies = args.include_body ? await bodies(guard.page(matches, PATTERN_CAP).slice(0, BODY_CAP), BODY_BYTES, context.ws.read) : new Map();
  const bodyNote =
    args.include_body && matches.length > BODY_CAP ? `Bodies are included for the first ${BODY_CAP} results only; use name_path for one symbol.` : undefined;
  return guard.respond({
    items: matches,
    cap: PATTERN_CAP,
    budget: context.budget,
    render: (shown) => ({
      symbols: shown.map(({ file, symbol }) => ({
        name_path: symbol.namePath,
        kind: symbol.kind,
        file,
        line: symbol.startLine,
        ...(guard.focused ? { end_line: symbol.endLine } : {}),
        ...(withBodies.has(symbol) ? { body: withBodies.get(symbol) } : {}),
      })),
      ...(note || bodyNote ? { note: [note, bodyNote].filter(Boolean).join(" ") } : {}),
    }),
    narrowings: (files) => {
      const out: Narrowing[] = [];
      const kinds = distribution(matches.map((m) => m.symbol.kind));
      if (!exact && !args.kind && kinds.entries.length > 1) {
        const kind = kinds.entries.find((k) => k.key !== "variable" && k.key !== "property")?.key ?? kinds.entries[0]!.key;
        out.push({ label: `filter by kind "${kind}"`, call: codeCall(context, "symbols", { ...base, kind }) });
      }
      if (files && files.entries.length > 1) {
        const top = files.entries[0]!;
        out.push({ label: `scope to ${top.key} (${top.count} matches)`, call: codeCall(context, "symbols", { ...base, path: top.key, glob: undefined }) });
      }
      return out;
    },
    pageCall: (offset) => codeCall(context, "symbols", { ...base, offset }),
    fileOf: start.kind === "dir" ? (m) => m.file : undefined,
  });
}

/** Nothing found: an empty list, and the next search most likely to find it. */
function noMatch(context: CodeContext, { args, base, start }: MatchRequest): Body {
  const where = start.rel || "the project";
  if (args.name_path !== undefined) {
    const last = args.name_path.split("/").filter(Boolean).pop() ?? args.name_path;
    const next = codeCall(context, "symbols", { pattern: last, ...(args.path ? { path: args.path } : {}) });
    return {
      symbols: [],
      total: 0,
      ...guidanceFields(hint(`No symbol has the name path "${args.name_path}" in ${where}. Search by name instead: ${formatCall(next)}`, next)),
    };
  }
  if (args.kind && args.pattern) {
    const next = codeCall(context, "symbols", { ...base, kind: undefined });
    return {
      symbols: [],
      total: 0,
      ...guidanceFields(hint(`No ${args.kind} named like "${args.pattern}" in ${where}. Without the kind filter: ${formatCall(next)}`, next)),
    };
  }
  const next = codeCall(context, "grep", { pattern: args.pattern || ".", ...(args.path ? { path: args.path } : {}) });
  return {
    symbols: [],
    total: 0,
    ...guidanceFields(
      hint(
        `No definition matches "${args.pattern ?? ""}" in ${where} (only definitions are indexed, in supported languages). Search the text instead: ${formatCall(next)}`,
        next,
      ),
    ),
  };
}
