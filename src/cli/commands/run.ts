import { createMetaDispatcher } from "../../meta/index.js";
import { LOCAL_PRINCIPAL } from "../../security/principal.js";
import { writeFileAtomic } from "../../util/files.js";
import { intFlag, logLevel, parseFlags, UsageError } from "../flags.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";
import { stderr, stdout } from "../output.js";

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    args: { type: "string" },
    timeout: { type: "string" },
    cache: { type: "string" },
    out: { type: "string" },
  });
  if (positionals.length !== 1) throw new UsageError('name exactly one tool id, e.g. metatools run everything:echo --args \'{"message":"hi"}\'');
  let toolArgs: unknown = {};
  if (values.args !== undefined) {
    try {
      toolArgs = JSON.parse(values.args);
    } catch (error) {
      throw new UsageError(`--args must be a JSON object: ${(error as Error).message}`);
    }
    if (!toolArgs || typeof toolArgs !== "object" || Array.isArray(toolArgs))
      throw new UsageError('--args must be a JSON object, e.g. \'{"path":"README.md"}\'');
  }
  const args: Record<string, unknown> = { tool_id: positionals[0], args: toolArgs };
  const timeout = intFlag(values.timeout, "timeout", 1);
  if (timeout !== undefined) args.timeout_ms = timeout;
  if (values.cache !== undefined) {
    if (!["use", "refresh", "bypass"].includes(values.cache)) throw new UsageError(`--cache takes use, refresh or bypass, got "${values.cache}"`);
    args.cache = values.cache;
  }
  const namespace = String(positionals[0]).split(":")[0]!;
  return withApp(
    values,
    logLevel(values["log-level"], "warn"),
    async (app) => {
      const body = await createMetaDispatcher(app)("run_tool", args);
      // A person at a terminal gets the whole result, not a handle that ends with this process.
      if (typeof body.handle === "string") {
        const found = await app.outputs.get(body.handle, LOCAL_PRINCIPAL).catch(() => undefined);
        const whole = found?.kind === "found" ? found.output : undefined;
        if (whole) {
          if (values.out) writeFileAtomic(values.out, whole.text);
          else stdout().pass(whole.text.endsWith("\n") ? whole.text : `${whole.text}\n`);
          if (values.out) stderr().write(`wrote ${Buffer.byteLength(whole.text)} bytes to ${values.out}\n`);
          return body.ok === false ? 1 : 0;
        }
      }
      if (values.out && body.ok !== false) {
        writeFileAtomic(values.out, `${JSON.stringify(body.structured ?? body.result ?? body, null, 2)}\n`);
        stderr().write(`wrote the result to ${values.out}\n`);
        return 0;
      }
      return printBody("run_tool", body, values.json ?? false);
    },
    // Only the tool's own backend is started.
    [namespace],
  );
}
