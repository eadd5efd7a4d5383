import { createMetaDispatcher } from "../../meta/index.js";
import type { SearchMode } from "../../config/resolved.js";
import { everyOf, flag, logLevel, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

const SEARCH_MODES = everyOf<SearchMode>()(["auto", "bm25", "semantic", "hybrid"]);

export const command = defineCommand({
  name: "search",
  group: "use",
  summary: "rank tools for a task, as search_tools does",
  args: "QUERY",
  details:
    "Answers from the snapshot of each server's last tool list without starting any (a server never listed is started). The hints print metatools commands to paste; --json prints the reply an agent gets.",
  flags: {
    limit: flag.int("N", 1, "at most N tools"),
    offset: flag.int("N", 0, "skip the first N (the next page)"),
    namespace: flag.repeatable("NS", "only the tools of this namespace"),
    tags: flag.string("a,b", "only tools with every one of these tags"),
    mode: flag.oneOf(SEARCH_MODES, "how to rank (default metatools.search.mode)"),
    refresh: SHARED.refresh,
    json: SHARED.json,
  },
  run: search,
});

/** The flags and the search_tools arguments a `metatools search` command line stands for (src/cli/command-line.ts writes them back). */
export function searchRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (positionals.length > 1) throw new UsageError(`quote the query as one argument: "${positionals.join(" ")}"`);
  const args: Record<string, unknown> = { query: positionals[0] ?? "" };
  if (values.limit !== undefined) args.limit = values.limit;
  if (values.offset !== undefined) args.offset = values.offset;
  if (values.namespace?.length) args.namespace = values.namespace.length === 1 ? values.namespace[0] : values.namespace;
  if (values.tags) args.tags = values.tags.split(",").map((t) => t.trim());
  if (values.mode) args.mode = values.mode;
  return { values, args };
}

export async function search(argv: string[]): Promise<number> {
  const { values, args } = searchRequest(argv);
  return withApp(
    values,
    logLevel(values["log-level"], "warn"),
    async (app) => {
      // One-shot: rank with every tool embedded (from the cache after `metatools index`).
      await app.search.whenIdle();
      const body = await createMetaDispatcher(app)("search_tools", args);
      return printBody("search_tools", body, values.json ?? false);
    },
    // From the snapshot of each backend's last tool list: no backend is started unless --refresh asks.
    values.refresh ? undefined : [],
  );
}
