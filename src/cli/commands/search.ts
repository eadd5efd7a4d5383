import { createMetaDispatcher } from "../../meta/index.js";
import { logLevel, parseFlags, UsageError } from "../flags.js";
import { COMMANDS } from "../registry.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

/** The flags and the search_tools arguments a `metatools search` command line stands for (src/cli/command-line.ts writes them back). */
export function searchRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, COMMANDS.search.flags);
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
      await app.search.semantic?.whenIdle();
      const body = await createMetaDispatcher(app)("search_tools", args);
      return printBody("search_tools", body, values.json ?? false);
    },
    // From the snapshot of each backend's last tool list: no backend is started unless --refresh asks.
    values.refresh ? undefined : [],
  );
}
