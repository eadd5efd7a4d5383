import type { ToolCallResult } from "../../backends/types.js";
import { createMetaDispatcher } from "../../meta/index.js";
import { CACHE_MODES } from "../../exec/cache.js";
import type { MetaServices } from "../../meta/services.js";
import type { MetaBody } from "../../meta/types.js";
import { LOCAL_PRINCIPAL } from "../../security/principal.js";
import { writeFileAtomic } from "../../util/files.js";
import { flag, logLevel, oneOf, parseFlags, SHARED, UsageError } from "../flags.js";
import { defineCommand } from "../command.js";
import { printBody } from "../format.js";
import { withApp } from "../open.js";
import { stderr, stdout } from "../output.js";
import { resultFile } from "../result-file.js";
import { namespaceOf } from "../../model/tool.js";

export const command = defineCommand({
  name: "run",
  group: "use",
  summary: "run a tool through metatools (validated, cached, observed), as run_tool does",
  args: "ID",
  details:
    "Only the tool's own server is started. A text result (one text, or one text resource) prints as its text; anything else as the JSON an agent gets (--json: the whole reply). A result too large for an agent's reply is still printed or written whole.",
  flags: {
    args: flag.string("JSON", `the tool's arguments as one JSON object (default {}), quoted for the shell: --args '{"path":"README.md"}'`),
    timeout: flag.int("MS", 1, "give up after MS milliseconds"),
    cache: flag.oneOf(CACHE_MODES, "use a cached result, or refresh it, or bypass the cache"),
    out: flag.string(
      "FILE",
      "writes the result to FILE instead of stdout: the bytes of a result that is one image, audio clip or binary resource (decoded), the text of one text or one text resource, else JSON (the structured content, or every content block); stderr says what was written (kind, bytes, MIME type)",
    ),
    json: SHARED.json,
  },
  run: run,
});

/** The flags and the run_tool arguments a `metatools run` command line stands for (src/cli/command-line.ts writes them back). */
export function runRequest(argv: string[]) {
  const { values, positionals } = parseFlags(argv, command.flags);
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
  if (values.timeout !== undefined) args.timeout_ms = values.timeout;
  if (values.cache !== undefined) args.cache = oneOf(values.cache, "cache", command.flags.cache.values);
  return { values, args, toolId: positionals[0]! };
}

export async function run(argv: string[]): Promise<number> {
  const { values, args, toolId } = runRequest(argv);
  const json = values.json ?? false;
  return withApp(
    values,
    logLevel(values["log-level"], "warn"),
    async (app) => {
      // --out writes the result as the backend gave it (redacted as it arrived): the reply shapes it for an agent (media beside the JSON, text once).
      let result: ToolCallResult | undefined;
      const executor: MetaServices["executor"] = {
        accepts: (id, toolArgs) => app.executor.accepts(id, toolArgs),
        run: async (request) => {
          const outcome = await app.executor.run(request);
          if (outcome.kind === "ok") result = outcome.result;
          return outcome;
        },
      };
      // The person typed the call: that is its approval, whatever the profile asks of agents' calls.
      const body = await createMetaDispatcher({ ...app, executor })("run_tool", args, { typed: true });
      if (values.out && body.ok !== false && result) return writeOut(values.out, body, result, json);
      // A person at a terminal gets the whole result, not a handle that ends with this process.
      if (typeof body.handle === "string" && !json) {
        const found = await app.outputs.get(body.handle, LOCAL_PRINCIPAL).catch(() => undefined);
        const whole = found?.kind === "found" ? found.output : undefined;
        if (whole) {
          stdout().pass(whole.text.endsWith("\n") ? whole.text : `${whole.text}\n`);
          return body.ok === false ? 1 : 0;
        }
      }
      // A text result reads as its text, as --out writes it, not as the JSON an agent gets around it.
      const chosen = !json && body.ok !== false && result ? resultFile(result) : undefined;
      if (chosen && "kind" in chosen && (chosen.kind === "text" || chosen.kind === "text resource") && typeof chosen.data === "string")
        return printBody("run_tool", { ...body, structured: undefined, content: undefined, result: chosen.data.replace(/\n$/, "") }, false);
      return printBody("run_tool", body, json);
    },
    // Only the tool's own backend is started.
    [namespaceOf(toolId) ?? toolId],
  );
}

/** Writes the result to `file` as what it is (result-file.ts) and says what was written: on stderr for a person, as `written` in the reply with --json. */
function writeOut(file: string, body: MetaBody, result: ToolCallResult, json: boolean): number {
  const chosen = resultFile(result);
  if ("withheld" in chosen) {
    stderr().write(`metatools run: nothing written to ${file}: the result's media is not what it claims (${chosen.withheld})\n`);
    return 1;
  }
  writeFileAtomic(file, chosen.data);
  const written = { file, kind: chosen.kind, bytes: chosen.bytes, ...(chosen.mimeType ? { mimeType: chosen.mimeType } : {}) };
  if (json) stdout().json({ ...body, written });
  else {
    stderr().write(`wrote ${file}: ${chosen.kind}${chosen.mimeType ? ` (${chosen.mimeType})` : ""}, ${chosen.bytes} bytes\n`);
    if (chosen.besides) stderr().write(`  the tool also said (not written): ${oneLine(chosen.besides)}\n`);
  }
  return 0;
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
