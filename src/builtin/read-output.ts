/**
 * `metatools:read_output`: reads a slice of a stored output handle by line
 * range, JSON path or grep. Every reply fits the budget itself (a slice too
 * long is shortened and says where to continue), so reading a handle never
 * creates another one.
 */
import * as z from "zod";
import { jsonBytes } from "../disclosure/budget.js";
import { formatCall, guidanceFields, hint, recoverable, type NextCall } from "../disclosure/guidance.js";
import { HANDLE_PATTERN, linesThatFit, READ_OUTPUT_ID, type OutputLookup, type OutputStore } from "../disclosure/outputs.js";
import { sizeWords } from "../store/quota.js";
import { StoreError } from "../store/kv.js";
import { escapeRegExp } from "../util/glob.js";
import { compileRegex, MAX_PATTERN, shownPattern, smartCaseInsensitive, type SafeRegex } from "../util/regex.js";
import { MatcherPool } from "../util/regex-worker.js";
import { describeMiss, evaluateJsonPath, suggestAfterMiss } from "../util/json-path.js";
import { BuiltinBackend, defineTool, RawResult, type Body, type BuiltinTool } from "./backend.js";

const readArgs = z.strictObject({
  handle: z.string().regex(HANDLE_PATTERN).describe('The handle from the earlier reply, e.g. "@out_3kq9ZJ0aLx2mQ1vT".'),
  start_line: z.int().min(1).optional().describe("First line to read (default 1)."),
  end_line: z.int().min(1).optional().describe("Last line to read, inclusive (default: as many as fit)."),
  start_column: z
    .int()
    .min(1)
    .optional()
    .describe("For a line too long to send whole: the character of start_line to read from (replies say when this is needed)."),
  json_path: z.string().optional().describe('For JSON outputs: the part to return, e.g. "$.items[0]" or "$.items[0:10].name".'),
  grep: z
    .string()
    .min(1)
    .max(MAX_PATTERN)
    .optional()
    .describe(
      "Regular expression (RE2 syntax: no lookaround or backreferences): return the matching lines with their numbers. Case-insensitive unless it has a capital letter.",
    ),
});
type ReadArgs = z.output<typeof readArgs>;

const GREP_CAP = 200;

/** The `metatools` namespace: read_output, and the tools given beside it (read_resource, run_program); `onClose` also closes what they hold. */
export function outputsBackend(
  store: OutputStore,
  budget: number,
  others: readonly BuiltinTool[] = [],
  onClose: () => Promise<void> = async () => {},
): BuiltinBackend {
  const matchers = new MatcherPool();
  return new BuiltinBackend("metatools", { name: "metatools-outputs" }, [readOutputTool(store, budget, matchers), ...others], async () => {
    await matchers.close();
    await onClose();
  });
}

function readOutputTool(store: OutputStore, budget: number, matchers: MatcherPool) {
  const call = (args: Record<string, unknown>): NextCall => ({ tool: "run_tool", arguments: { tool_id: READ_OUTPUT_ID, args } });
  return defineTool({
    name: "read_output",
    title: "Read a stored output",
    description:
      "Read part of a large result that was stored under a handle (@out_…) instead of being sent whole: a line range, a JSON path ($.items[0:10]) or the lines matching a regex.",
    args: readArgs,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },

    async handle(args, { principal, signal }): Promise<Body | RawResult> {
      let found: OutputLookup;
      try {
        // Another principal's handle is not found: the same answer as one that never existed.
        found = await store.get(args.handle, principal);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        const next = call(args);
        return recoverable(
          "store_unavailable",
          `Could not read ${args.handle}: ${error.message}.`,
          hint(`The store may be back shortly; retry: ${formatCall(next)}`, next),
        );
      }
      if (found.kind !== "found") return notFound(args.handle, found, store.ttlMs);
      const output = found.output;
      // Media (images, audio) come back as they were sent: the agent asked for them by this call.
      if (output.kind === "media")
        return new RawResult({
          content: [{ type: "text", text: `${output.media?.length ?? 0} item(s) from ${output.source}: ${output.text}` }, ...(output.media ?? [])],
        });
      const room = budget - 400;
      if (args.json_path !== undefined) {
        let root: unknown;
        try {
          root = JSON.parse(output.text);
        } catch {
          const next = call({ handle: args.handle, grep: args.json_path.replace(/^\$\.?/, "") || "." });
          return recoverable("not_json", `${args.handle} holds text, not JSON.`, hint(`Use a line range or grep instead: ${formatCall(next)}`, next));
        }
        const found = evaluateJsonPath(root, args.json_path);
        if (!found.ok) {
          const suggested = suggestAfterMiss(found);
          const next = suggested ? call({ handle: args.handle, json_path: suggested }) : undefined;
          return recoverable("json_path_miss", describeMiss(args.json_path, found), next && hint(`For example: ${formatCall(next)}`, next));
        }
        const body = { handle: args.handle, json_path: args.json_path, value: found.value };
        if (jsonBytes(body) <= room) return body;
        const size = jsonBytes(found.value);
        const slice = Array.isArray(found.value) ? `${args.json_path}[0:10]` : undefined;
        const next = slice ? call({ handle: args.handle, json_path: slice }) : undefined;
        return {
          handle: args.handle,
          json_path: args.json_path,
          value_bytes: size,
          ...guidanceFields(
            hint(
              `The value is ${size} bytes, over the budget. ${next ? `Take part of it: ${formatCall(next)}` : "Use a deeper json_path, or read it by line range."}`,
              next,
            ),
          ),
        };
      }
      const lines = output.text.split("\n");
      if (args.grep !== undefined) return grepLines({ args, text: output.text, lines, room, call, matchers, signal });
      const start = Math.min(args.start_line ?? 1, lines.length);
      if (args.start_column !== undefined || jsonBytes(lines[start - 1]!) > room - 300) return readColumns(args, lines, start, room, call);
      const wanted = Math.min(args.end_line ?? lines.length, lines.length);
      const end = Math.max(start, Math.min(wanted, linesThatFit(lines, start, room - 200)));
      const body: Body = { handle: args.handle, start_line: start, end_line: end, total_lines: lines.length, content: lines.slice(start - 1, end).join("\n") };
      if (end >= lines.length) return body;
      const next = call({ handle: args.handle, start_line: end + 1, end_line: Math.min(lines.length, end + (end - start + 1)) });
      const why = end < wanted ? `Lines ${start}-${end} fit the budget` : `Read lines ${start}-${end}`;
      return { ...body, ...guidanceFields(hint(`${why}; ${lines.length - end} lines remain. Continue: ${formatCall(next)}`, next)) };
    },
  });
}

/**
 * Why a handle cannot be read. A handle evicted for room says so (its owner
 * made more outputs than its share holds), so the agent learns to read
 * sooner or ask for less; one merely unknown lists the ways a handle ends.
 */
function notFound(handle: string, found: Exclude<OutputLookup, { kind: "found" }>, ttlMs: number): Body {
  const rerun = hint("Run the call that produced it again (the same run_tool call); its reply carries a fresh handle.");
  if (found.kind === "evicted")
    return recoverable(
      "evicted_handle",
      `${handle} was evicted before its ${Math.round(ttlMs / 60_000)} minutes were up, to make room for your later outputs: each caller keeps at most ${sizeWords(found.ownerBytes)} of outputs, and its oldest go first. Read a handle's slices before making many more large outputs, or narrow the calls.`,
      rerun,
    );
  if (found.kind === "dropped")
    return recoverable(
      "evicted_handle",
      `${handle} was dropped by the store itself before its time (a Redis at its maxmemory evicting keys; the operator can fix this, see docs/deploy.md), not by your own outputs.`,
      rerun,
    );
  return recoverable(
    "unknown_handle",
    `No stored output ${handle}: it expired (handles live ${Math.round(ttlMs / 60_000)} minutes), was made for another caller (another token), or was made by a server that does not share this one's store.`,
    rerun,
  );
}

/** One line too long to send whole, read in pieces of characters. */
function readColumns(args: ReadArgs, lines: string[], start: number, room: number, call: (a: Record<string, unknown>) => NextCall): Body {
  const line = lines[start - 1]!;
  const from = Math.min(Math.max(1, args.start_column ?? 1), Math.max(1, line.length)) - 1;
  // The longest piece whose JSON encoding fits: binary search on its length.
  let low = 1;
  let high = line.length - from;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonBytes(line.slice(from, from + mid)) <= room - 300) low = mid;
    else high = mid - 1;
  }
  const to = from + Math.max(0, Math.min(low, line.length - from));
  const body: Body = {
    handle: args.handle,
    start_line: start,
    start_column: from + 1,
    end_column: to,
    line_chars: line.length,
    total_lines: lines.length,
    content: line.slice(from, to),
  };
  const next =
    to < line.length
      ? call({ handle: args.handle, start_line: start, start_column: to + 1 })
      : start < lines.length
        ? call({ handle: args.handle, start_line: start + 1 })
        : undefined;
  if (!next) return body;
  const what = to < line.length ? `Line ${start} is ${line.length} characters; this is ${from + 1}-${to}.` : `End of line ${start}.`;
  return { ...body, ...guidanceFields(hint(`${what} Continue: ${formatCall(next)}`, next)) };
}

interface GrepRequest {
  args: ReadArgs;
  /** The whole output, searched; `lines` is it split, shown. */
  text: string;
  lines: string[];
  /** Bytes the matches may take. */
  room: number;
  /** A next call to suggest, with these arguments. */
  call: (a: Record<string, unknown>) => NextCall;
  matchers: MatcherPool;
  signal: AbortSignal;
}

/** The lines matching a regex, searched in a worker when the output is large (util/regex-worker.ts). */
async function grepLines({ args, text, lines, room, call, matchers, signal }: GrepRequest): Promise<Body> {
  let regex: SafeRegex;
  try {
    regex = compileRegex(args.grep!, { ignoreCase: smartCaseInsensitive(args.grep!), multiline: true });
  } catch (error) {
    const literal = args.grep!.slice(0, MAX_PATTERN / 2);
    const next = call({ handle: args.handle, grep: escapeRegExp(literal) });
    return recoverable(
      "invalid_regex",
      `"${shownPattern(args.grep!, 200)}" is not a usable regular expression: ${(error as Error).message}.`,
      hint(`Search for it literally: ${formatCall(next)}`, next),
    );
  }
  const searcher = matchers.open(regex, signal);
  let found;
  try {
    found = await searcher.search(text);
  } finally {
    searcher.close();
  }
  const all = found.map(({ line: n }) => {
    const line = lines[n - 1] ?? "";
    return `${n}: ${line.length > 300 ? `${line.slice(0, 300)}… [${line.length} chars]` : line}`;
  });
  const shown: string[] = [];
  let used = 0;
  for (const line of all.slice(0, GREP_CAP)) {
    if (used + jsonBytes(line) > room - 300) break;
    shown.push(line);
    used += jsonBytes(line) + 1;
  }
  const body: Body = { handle: args.handle, grep: args.grep!.length <= 200 ? args.grep : `${args.grep!.slice(0, 200)}…`, total: all.length, matches: shown };
  if (shown.length === all.length) return body;
  const lastLine = Number(shown.at(-1)?.split(":")[0] ?? 0);
  const next = call({ handle: args.handle, start_line: lastLine + 1 });
  return {
    ...body,
    ...guidanceFields(
      hint(`Showing ${shown.length} of ${all.length} matching lines. Use a narrower regex, or read on from line ${lastLine + 1}: ${formatCall(next)}`, next),
    ),
  };
}
