import { createMetaDispatcher } from "../../meta/index.js";
import { logLevel, parseFlags, UsageError } from "../flags.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

export async function describe(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { detail: { type: "string" }, examples: { type: "string" }, refresh: { type: "boolean" } });
  if (!positionals.length) throw new UsageError("name a tool id, e.g. metatools describe everything:echo");
  const args: Record<string, unknown> = positionals.length === 1 ? { tool_id: positionals[0] } : { tool_ids: positionals };
  if (values.detail) args.detail_level = values.detail;
  if (values.examples) args.examples_max = Number(values.examples);
  return withApp(
    values,
    logLevel(values["log-level"], "warn"),
    async (app) => {
      const body = await createMetaDispatcher(app)("describe_tool", args);
      return printBody("describe_tool", body, values.json ?? false);
      // From the snapshot: no backend is started unless --refresh asks.
    },
    values.refresh ? undefined : [],
  );
}
