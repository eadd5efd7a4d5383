import { createMetaDispatcher } from "../../meta/index.js";
import { intFlag, logLevel, parseFlags, UsageError } from "../flags.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { args: { type: "string" }, timeout: { type: "string" }, cache: { type: "string" } });
  if (positionals.length !== 1) throw new UsageError("name exactly one tool id, e.g. metatools run everything:echo --args '{\"message\":\"hi\"}'");
  let toolArgs: unknown = {};
  if (values.args !== undefined) {
    try {
      toolArgs = JSON.parse(values.args);
    } catch (error) {
      throw new UsageError(`--args must be a JSON object: ${(error as Error).message}`);
    }
    if (!toolArgs || typeof toolArgs !== "object" || Array.isArray(toolArgs)) throw new UsageError("--args must be a JSON object, e.g. '{\"path\":\"README.md\"}'");
  }
  const args: Record<string, unknown> = { tool_id: positionals[0], args: toolArgs };
  const timeout = intFlag(values.timeout, "timeout", 1);
  if (timeout !== undefined) args.timeout_ms = timeout;
  if (values.cache !== undefined) {
    if (!["use", "refresh", "bypass"].includes(values.cache)) throw new UsageError(`--cache takes use, refresh or bypass, got "${values.cache}"`);
    args.cache = values.cache;
  }
  return withApp(values, logLevel(values["log-level"], "warn"), async (app) => {
    const body = await createMetaDispatcher(app)("run_tool", args);
    if (typeof body.handle === "string" && app.config.store.url === "memory") {
      process.stderr.write(
        `note: ${body.handle} was kept in this process's memory and ends with it. To read handles from later commands, set metatools.store.url to a redis:// or sqlite:// store; or raise metatools.budgets.inlineBytes.\n`,
      );
    }
    return printBody("run_tool", body, values.json ?? false);
  });
}
