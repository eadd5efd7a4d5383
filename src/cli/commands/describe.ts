import { createMetaDispatcher } from "../../meta/index.js";
import { DETAIL_LEVELS, DOC_FORMATS } from "../../meta/tool-doc.js";
import { flag, logLevel, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

export const command = defineCommand({
  name: "describe",
  group: "use",
  summary: "a tool's docs: schema, notes and examples, as describe_tool gives them",
  args: "ID...",
  details: "Reads the snapshot of the servers' tool lists, as search does.",
  flags: {
    detail: flag.oneOf(DETAIL_LEVELS, "how much: what it is, how to call it (the default), or that and its notes and examples"),
    examples: flag.int("N", 0, "at most N examples"),
    format: flag.oneOf(DOC_FORMATS, "json_schema (the default) or typescript: the tool as one declaration, as a program calls it"),
    refresh: SHARED.refresh,
    json: SHARED.json,
  },
  run: describe,
});

/** The flags and the describe_tool arguments a `metatools describe` command line stands for (src/cli/command-line.ts writes them back). */
export function describeRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, command.flags);
  if (!positionals.length) throw new UsageError("name a tool id, e.g. metatools describe everything:echo");
  const args: Record<string, unknown> = positionals.length === 1 ? { tool_id: positionals[0] } : { tool_ids: positionals };
  if (values.detail) args.detail_level = values.detail;
  if (values.examples !== undefined) args.examples_max = values.examples;
  if (values.format) args.format = values.format;
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
