import { createMetaDispatcher } from "../../meta/index.js";
import { logLevel, parseFlags, UsageError } from "../flags.js";
import { COMMANDS } from "../registry.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

/** The flags and the describe_tool arguments a `metatools describe` command line stands for (src/cli/command-line.ts writes them back). */
export function describeRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, COMMANDS.describe.flags);
  if (!positionals.length) throw new UsageError("name a tool id, e.g. metatools describe everything:echo");
  const args: Record<string, unknown> = positionals.length === 1 ? { tool_id: positionals[0] } : { tool_ids: positionals };
  if (values.detail) args.detail_level = values.detail;
  if (values.examples !== undefined) args.examples_max = values.examples;
  return { values, args };
}

export async function describe(argv: string[]): Promise<number> {
  const { values, args } = describeRequest(argv);
  return withApp(
    values,
    logLevel(values["log-level"], "warn"),
    async (app) => {
      const body = await createMetaDispatcher(app)("describe_tool", args);
      return printBody("describe_tool", body, values.json ?? false);
    },
    // From the snapshot: no backend is started unless --refresh asks.
    values.refresh ? undefined : [],
  );
}
